/**
 * The records that travel between the operators: graph input, sample requests and responses, batch
 * specs, mini-batches and their parts, graph events and credits. Plain POJOs with no Flink imports,
 * so the model code can use them too.
 */
package io.gnnstream.operators.messages;
