package io.gnnstream.tools.formats;

import io.gnnstream.tools.DatasetException;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one {@code .npy} array: the magic {@code \x93NUMPY}, the format version, a header that is a
 * Python dict literal ({@code descr}, {@code fortran_order}, {@code shape}), then the raw data.
 */
final class Npy {

    private static final Pattern DESCR = Pattern.compile("'descr'\\s*:\\s*'([^']*)'");
    private static final Pattern FORTRAN = Pattern.compile("'fortran_order'\\s*:\\s*(True|False)");
    private static final Pattern SHAPE = Pattern.compile("'shape'\\s*:\\s*\\(([^)]*)\\)");

    private Npy() {}

    /** The element type of an {@code .npy} stream's header, e.g. {@code <f4} or {@code |O}. */
    static String descr(String header, String where) throws DatasetException {
        Matcher m = DESCR.matcher(header);
        if (!m.find()) {
            throw new DatasetException(where + ": npy header without a plain 'descr': " + header);
        }
        return m.group(1);
    }

    /** Reads the header of {@code in}, leaving the stream at the data. */
    static String header(InputStream in, String where) throws IOException {
        DataInputStream d = new DataInputStream(in);
        byte[] magic = new byte[6];
        try {
            d.readFully(magic);
            if ((magic[0] & 0xff) != 0x93
                    || !"NUMPY".equals(new String(magic, 1, 5, StandardCharsets.ISO_8859_1))) {
                throw new DatasetException(where + ": not an .npy array (bad magic)");
            }
            int major = d.readUnsignedByte();
            d.readUnsignedByte();
            int length;
            if (major == 1) {
                length = d.readUnsignedByte() | d.readUnsignedByte() << 8;
            } else if (major == 2 || major == 3) {
                length = Integer.reverseBytes(d.readInt());
            } else {
                throw new DatasetException(where + ": unsupported .npy version " + major);
            }
            if (length < 0 || length > 1 << 20) {
                throw new DatasetException(where + ": bad .npy header length " + length);
            }
            byte[] header = new byte[length];
            d.readFully(header);
            return new String(
                    header, major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        } catch (EOFException e) {
            throw new DatasetException(where + ": truncated .npy header", e);
        }
    }

    /** Reads the array of {@code in}: header, then data. */
    static NdArray read(InputStream in, String where) throws IOException {
        String header = header(in, where);
        String descr = descr(header, where);
        Matcher f = FORTRAN.matcher(header);
        Matcher s = SHAPE.matcher(header);
        if (!f.find() || !s.find()) {
            throw new DatasetException(
                    where + ": npy header without fortran_order/shape: " + header);
        }
        String[] dims = s.group(1).split(",");
        int count = 0;
        for (String dim : dims) {
            count += dim.isBlank() ? 0 : 1;
        }
        int[] shape = new int[count];
        long size = 1;
        int i = 0;
        for (String dim : dims) {
            if (!dim.isBlank()) {
                try {
                    shape[i] = Integer.parseInt(dim.trim().replaceAll("L$", ""));
                } catch (NumberFormatException e) {
                    throw new DatasetException(where + ": bad npy shape (" + s.group(1) + ")");
                }
                size *= shape[i++];
            }
        }
        if (descr.contains("O")) {
            throw new DatasetException(where + ": an object array (pickled), not read");
        }
        int itemSize;
        try {
            itemSize = Integer.parseInt(descr.replaceAll("^[<>|=]?[a-zA-Z]", ""));
        } catch (NumberFormatException e) {
            throw new DatasetException(where + ": unsupported numpy element type '" + descr + "'");
        }
        long bytes = size * itemSize;
        if (bytes > Integer.MAX_VALUE - 16) {
            throw new DatasetException(where + ": array of " + bytes + " bytes is too large");
        }
        byte[] data = new byte[(int) bytes];
        try {
            new DataInputStream(in).readFully(data);
        } catch (EOFException e) {
            throw new DatasetException(where + ": truncated data, expected " + bytes + " bytes", e);
        }
        return new NdArray(descr, shape, "True".equals(f.group(1)), data, where);
    }
}
