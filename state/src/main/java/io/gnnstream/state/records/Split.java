package io.gnnstream.state.records;

import java.util.Locale;

/**
 * Role of a vertex in training, as in the Planetoid public splits. Binary layouts (vertex records,
 * serialized node updates) store a split as its one-byte {@link #code()}.
 */
public enum Split {
    NONE(0),
    TRAIN(1),
    VAL(2),
    TEST(3);

    private static final Split[] BY_CODE = new Split[values().length];

    static {
        for (Split s : values()) {
            BY_CODE[s.code] = s;
        }
    }

    private final byte code;

    Split(int code) {
        this.code = (byte) code;
    }

    /** The byte that stands for this split in binary layouts. */
    public byte code() {
        return code;
    }

    /**
     * The split with {@code code}.
     *
     * @throws IllegalArgumentException if no split has that code
     */
    public static Split ofCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalArgumentException(
                    "unknown split code " + code + ", expected 0 to " + (BY_CODE.length - 1));
        }
        return BY_CODE[code];
    }

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
