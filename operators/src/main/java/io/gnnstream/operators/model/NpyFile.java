package io.gnnstream.operators.model;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One NumPy {@code .npy} file of float32 values in C order ({@code <f4}): what {@link NpyExport}
 * writes per tensor and {@link ModelExports} reads back. Uses java.base only (no ND4J, no JSON
 * library), so the GPU check's bundle can carry it.
 */
public final class NpyFile {

    static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};

    private static final Pattern DESCR = Pattern.compile("'descr'\\s*:\\s*'([^']*)'");
    private static final Pattern FORTRAN = Pattern.compile("'fortran_order'\\s*:\\s*(True|False)");
    private static final Pattern SHAPE = Pattern.compile("'shape'\\s*:\\s*\\(([0-9,\\s]*)\\)");

    private NpyFile() {}

    /** Writes {@code values} of {@code shape} to {@code file} (format 1.0), replacing it. */
    public static void write(Path file, int[] shape, float[] values) throws IOException {
        Files.write(file, encode(shape, values));
    }

    /** The complete {@code .npy} file contents for a float32 C-order array. */
    public static byte[] encode(int[] shape, float[] values) {
        long count = 1;
        for (int d : shape) {
            count *= d;
        }
        if (count != values.length) {
            throw new IllegalArgumentException(
                    "shape "
                            + Arrays.toString(shape)
                            + " holds "
                            + count
                            + " values, got "
                            + values.length);
        }
        StringBuilder dims = new StringBuilder();
        for (int d : shape) {
            dims.append(d).append(", ");
        }
        String shapeText =
                shape.length == 1
                        ? "(" + shape[0] + ",)"
                        : "(" + dims.substring(0, Math.max(0, dims.length() - 2)) + ")";
        String dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shapeText + ", }";
        // Magic (8) + header length (2) + dict + padding + '\n' must be a multiple of 64.
        int unpadded = MAGIC.length + 2 + dict.length() + 1;
        int headerLen = dict.length() + 1 + (64 - unpadded % 64) % 64;
        String header = dict + " ".repeat(headerLen - dict.length() - 1) + "\n";
        ByteBuffer out =
                ByteBuffer.allocate(MAGIC.length + 2 + headerLen + 4 * values.length)
                        .order(ByteOrder.LITTLE_ENDIAN);
        out.put(MAGIC).putShort((short) headerLen).put(header.getBytes(StandardCharsets.US_ASCII));
        out.asFloatBuffer().put(values);
        return out.array();
    }

    /**
     * The values of a {@code .npy} file (version 1.0 to 3.0, {@code <f4}, C order) of shape {@code
     * shape}.
     *
     * @throws IOException if the file is missing, not a {@code .npy} file, or of another dtype,
     *     order, shape or size
     */
    public static float[] read(Path file, int[] shape) throws IOException {
        byte[] bytes = bytes(file);
        Header h = header(bytes, file);
        if (!Arrays.equals(h.shape, shape)) {
            throw new IOException(
                    file
                            + " has shape "
                            + Arrays.toString(h.shape)
                            + ", expected "
                            + Arrays.toString(shape));
        }
        long count = 1;
        for (int d : shape) {
            count *= d;
        }
        long dataLen = bytes.length - h.dataStart;
        if (dataLen != 4 * count) {
            throw new IOException(
                    file
                            + " holds "
                            + dataLen
                            + " data bytes, shape "
                            + Arrays.toString(shape)
                            + " needs "
                            + 4 * count
                            + (dataLen < 4 * count ? " (truncated)" : ""));
        }
        float[] values = new float[(int) count];
        ByteBuffer.wrap(bytes, h.dataStart, (int) dataLen)
                .order(ByteOrder.LITTLE_ENDIAN)
                .asFloatBuffer()
                .get(values);
        return values;
    }

    /**
     * The shape a {@code .npy} file's header gives (of a {@code <f4}, C-order array).
     *
     * @throws IOException as {@link #read}, except that the data is not looked at
     */
    public static int[] shape(Path file) throws IOException {
        return header(bytes(file), file).shape;
    }

    private record Header(int[] shape, int dataStart) {}

    private static byte[] bytes(Path file) throws IOException {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IOException("missing tensor file " + file, e);
        }
    }

    private static Header header(byte[] bytes, Path file) throws IOException {
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.length < 10 || !Arrays.equals(Arrays.copyOf(bytes, 6), Arrays.copyOf(MAGIC, 6))) {
            throw new IOException(file + " is not a .npy file (bad magic)");
        }
        int major = bytes[6];
        int headerStart = major == 1 ? 10 : 12;
        if (major < 1 || major > 3 || bytes.length < headerStart) {
            throw new IOException(file + ": unsupported .npy version " + major + "." + bytes[7]);
        }
        long headerLen = major == 1 ? in.getShort(8) & 0xFFFF : in.getInt(8) & 0xFFFFFFFFL;
        if (headerStart + headerLen > bytes.length) {
            throw new IOException(file + " is truncated inside its header");
        }
        String header =
                new String(
                        bytes,
                        headerStart,
                        (int) headerLen,
                        major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        Matcher descr = DESCR.matcher(header);
        Matcher fortran = FORTRAN.matcher(header);
        Matcher dims = SHAPE.matcher(header);
        if (!descr.find() || !fortran.find() || !dims.find()) {
            throw new IOException(file + ": malformed .npy header " + header.trim());
        }
        if (!descr.group(1).equals("<f4")) {
            throw new IOException(file + " has dtype " + descr.group(1) + ", expected <f4");
        }
        if (fortran.group(1).equals("True")) {
            throw new IOException(file + " is in Fortran order, expected C order");
        }
        int[] shape =
                Arrays.stream(dims.group(1).split(","))
                        .map(String::trim)
                        .filter(s -> !s.isEmpty())
                        .mapToInt(NpyFile::dimension)
                        .toArray();
        return new Header(shape, (int) (headerStart + headerLen));
    }

    private static int dimension(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
