package io.gnnstream.operators.messages;

/**
 * Where every record of one batch belongs (docs/design.md, "Glossary"): the trainer rank that
 * trains it, its {@code seq} in that rank's sequence, and its id, which keys the batch at the
 * assembler. Specs, requests, heads and parts all carry it; a spec issued again keeps it.
 */
public record BatchAddress(int rank, long seq, long batchId) {

    @Override
    public String toString() {
        return "batch " + batchId + " (rank " + rank + ", seq " + seq + ")";
    }
}
