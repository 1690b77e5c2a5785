/**
 * Explicit, versioned Flink serializers of the sampling loop's large records (graph input, sample
 * responses, mini-batches and their parts), which write arrays in bulk instead of through Flink's
 * reflective POJO serializer.
 */
package io.gnnstream.operators.serialization;
