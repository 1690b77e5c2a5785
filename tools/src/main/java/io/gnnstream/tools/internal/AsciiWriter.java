package io.gnnstream.tools.internal;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A buffered writer of ASCII text that formats integers and fixed-point decimals straight into
 * bytes. Generated datasets hold hundreds of millions of numbers; {@code String.format} or a {@code
 * Writer} with a charset encoder would dominate the run time. The SHA-256 of everything written is
 * computed on the way, for provenance.
 */
public final class AsciiWriter implements Closeable {

    private static final int BUFFER = 1 << 20;

    /** Longest single append: a long with sign, or a fixed-point value with up to 9 decimals. */
    private static final int MAX_TOKEN = 48;

    private static final long[] POW10 = {
        1L,
        10L,
        100L,
        1_000L,
        10_000L,
        100_000L,
        1_000_000L,
        10_000_000L,
        100_000_000L,
        1_000_000_000L
    };

    private final OutputStream out;
    private final MessageDigest digest;
    private final byte[] buf = new byte[BUFFER];
    private int pos;
    private long written;
    private String sha256;

    public AsciiWriter(Path file) throws IOException {
        this.out = Files.newOutputStream(file);
        try {
            this.digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** Appends an ASCII string. */
    public AsciiWriter append(String ascii) throws IOException {
        int length = ascii.length();
        if (length > BUFFER) {
            throw new IllegalArgumentException(
                    "string too long for one append: " + length + " chars");
        }
        if (pos + length > BUFFER) {
            flushBuffer();
        }
        for (int i = 0; i < length; i++) {
            buf[pos++] = (byte) ascii.charAt(i);
        }
        return this;
    }

    public AsciiWriter append(char c) throws IOException {
        if (pos == BUFFER) {
            flushBuffer();
        }
        buf[pos++] = (byte) c;
        return this;
    }

    public AsciiWriter append(long value) throws IOException {
        room();
        if (value < 0) {
            if (value == Long.MIN_VALUE) {
                return append(Long.toString(value));
            }
            buf[pos++] = '-';
            value = -value;
        }
        int digits = 1;
        for (long v = value / 10; v != 0; v /= 10) {
            digits++;
        }
        int end = pos + digits;
        for (int i = end - 1; i >= pos; i--) {
            buf[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
        pos = end;
        return this;
    }

    /**
     * Appends {@code value} rounded to {@code decimals} places (0-9), without trailing zeros and
     * without a negative zero, e.g. {@code 1.5}, {@code -0.012}, {@code 3}.
     */
    public AsciiWriter appendFixed(double value, int decimals) throws IOException {
        long scaled = Math.round(value * POW10[decimals]);
        if (scaled < 0) {
            room();
            buf[pos++] = '-';
            scaled = -scaled;
        }
        long scale = POW10[decimals];
        append(scaled / scale);
        long fraction = scaled % scale;
        if (fraction != 0) {
            int places = decimals;
            while (fraction % 10 == 0) {
                fraction /= 10;
                places--;
            }
            buf[pos++] = '.';
            for (int i = pos + places - 1; i >= pos; i--) {
                buf[i] = (byte) ('0' + fraction % 10);
                fraction /= 10;
            }
            pos += places;
        }
        return this;
    }

    /** Bytes written so far, including those still buffered. */
    public long bytesWritten() {
        return written + pos;
    }

    /** Hex SHA-256 of the content, available after {@link #close()}. */
    public String sha256() {
        if (sha256 == null) {
            throw new IllegalStateException("the SHA-256 is known once the writer is closed");
        }
        return sha256;
    }

    @Override
    public void close() throws IOException {
        if (sha256 != null) {
            return;
        }
        try (OutputStream o = out) {
            flushBuffer();
        }
        sha256 = HexFormat.of().formatHex(digest.digest());
    }

    private void room() throws IOException {
        if (pos + MAX_TOKEN > BUFFER) {
            flushBuffer();
        }
    }

    private void flushBuffer() throws IOException {
        out.write(buf, 0, pos);
        digest.update(buf, 0, pos);
        written += pos;
        pos = 0;
    }
}
