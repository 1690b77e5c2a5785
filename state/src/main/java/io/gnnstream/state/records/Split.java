package io.gnnstream.state.records;

import java.util.Locale;

/** Role of a vertex in training, as in the Planetoid public splits. */
public enum Split {
    NONE,
    TRAIN,
    VAL,
    TEST;

    /** Parses the wire name ({@code train|val|test|none}); returns null when unknown. */
    public static Split fromWireName(String name) {
        if (name == null) {
            return null;
        }
        switch (name.toLowerCase(Locale.ROOT)) {
            case "train":
                return TRAIN;
            case "val":
                return VAL;
            case "test":
                return TEST;
            case "none":
                return NONE;
            default:
                return null;
        }
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
