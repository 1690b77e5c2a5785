/**
 * Serialization helpers shared by the modules: bulk little-endian primitive arrays ({@link
 * io.gnnstream.state.serialization.BulkArrays}) and type information bound to one explicit
 * serializer ({@link io.gnnstream.state.serialization.SerializerTypeInfo}).
 */
package io.gnnstream.state.serialization;
