package io.gnnstream.tools.formats;

import io.gnnstream.tools.DatasetException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pickle reader for the subset that Python-2 and Python-3 pickles (protocols 0-4) of numpy
 * arrays, scipy sparse matrices and dicts of lists use. Python-2 strings are read as latin-1, as
 * {@code pickle.load(f, encoding='latin1')} does. Results: {@code Long}, {@code Double}, {@code
 * String}, {@code byte[]}, {@code Boolean}, null, {@code List} (tuples and lists), {@code Map}
 * (dicts, defaultdicts), {@link PickledArray} ({@code numpy _reconstruct}), {@link Instance} (other
 * objects, e.g. {@code scipy.sparse.csr.csr_matrix} with its {@code __dict__} state).
 */
final class Pickle {

    /** A {@code module.name} reference ({@code GLOBAL}). */
    record Global(String module, String name) {
        @Override
        public String toString() {
            return module + "." + name;
        }
    }

    /** An object built by {@code NEWOBJ} or a {@code REDUCE} of an unknown callable. */
    static final class Instance {
        final Global type;
        final List<Object> args;
        Object state;

        Instance(Global type, List<Object> args) {
            this.type = type;
            this.args = args;
        }
    }

    /** A numpy dtype: its name ({@code f8}) and, after {@code BUILD}, its byte order. */
    static final class Dtype {
        final String name;
        String order = "|";

        Dtype(String name) {
            this.name = name;
        }

        /** The {@code .npy}-style descr, e.g. {@code <f8}. */
        String descr() {
            return ("=".equals(order) ? "<" : order) + name;
        }
    }

    /** A numpy array under construction: {@code _reconstruct}, then {@code BUILD}. */
    static final class PickledArray {
        int[] shape;
        Dtype dtype;
        boolean fortran;
        Object data;
    }

    private static final Object MARK = new Object();

    private final byte[] b;
    private final String where;
    private int pos;
    private final List<Object> stack = new ArrayList<>();
    private final List<Integer> marks = new ArrayList<>();
    private final Map<Long, Object> memo = new HashMap<>();

    private Pickle(byte[] bytes, String where) {
        this.b = bytes;
        this.where = where;
    }

    /** The object of a pickle. */
    static Object load(byte[] bytes, String where) throws DatasetException {
        try {
            return new Pickle(bytes, where).run();
        } catch (IndexOutOfBoundsException e) {
            throw new DatasetException(where + ": truncated or malformed pickle", e);
        } catch (ClassCastException | NumberFormatException e) {
            throw new DatasetException(where + ": malformed pickle (" + e.getMessage() + ")", e);
        }
    }

    private Object run() throws DatasetException {
        while (true) {
            if (pos >= b.length) {
                throw error("ends without STOP");
            }
            int at = pos;
            int op = b[pos++] & 0xff;
            switch (op) {
                case 0x80 -> pos++; // PROTO
                case 0x95 -> pos += 8; // FRAME
                case '.' -> {
                    return pop();
                }
                case '(' -> {
                    marks.add(stack.size());
                    stack.add(MARK);
                }
                case '0' -> pop();
                case '1' -> popMark();
                case '2' -> push(stack.get(stack.size() - 1));
                case 'N' -> push(null);
                case 0x88 -> push(Boolean.TRUE);
                case 0x89 -> push(Boolean.FALSE);
                case 'I' -> {
                    String t = line();
                    push(
                            t.equals("01")
                                    ? Boolean.TRUE
                                    : t.equals("00") ? Boolean.FALSE : (Object) Long.parseLong(t));
                }
                case 'L' -> push(Long.parseLong(line().replaceAll("L$", "")));
                case 'J' -> push((long) le(4));
                case 'K' -> push((long) (b[pos++] & 0xff));
                case 'M' -> push((long) (le(2) & 0xffff));
                case 0x8a -> push(longN(b[pos++] & 0xff));
                case 0x8b -> push(longN(le(4)));
                case 'F' -> push(Double.parseDouble(line()));
                case 'G' -> {
                    long bits = 0;
                    for (int i = 0; i < 8; i++) {
                        bits = bits << 8 | (b[pos++] & 0xff);
                    }
                    push(Double.longBitsToDouble(bits));
                }
                case 'T' -> push(text(le(4), StandardCharsets.ISO_8859_1));
                case 'U' -> push(text(b[pos++] & 0xff, StandardCharsets.ISO_8859_1));
                case 'X' -> push(text(le(4), StandardCharsets.UTF_8));
                case 0x8c -> push(text(b[pos++] & 0xff, StandardCharsets.UTF_8));
                case 0x8d -> push(text(length8(), StandardCharsets.UTF_8));
                case 'B' -> push(bytes(le(4)));
                case 'C' -> push(bytes(b[pos++] & 0xff));
                case 0x8e -> push(bytes(length8()));
                case ')' -> push(new ArrayList<>());
                case ']' -> push(new ArrayList<>());
                case '}' -> push(new LinkedHashMap<>());
                case 0x8f -> push(new ArrayList<>());
                case 't', 'l', 0x91 -> push(popMark());
                case 0x85, 0x86, 0x87 -> {
                    int n = op - 0x84;
                    List<Object> t = new ArrayList<>(stack.subList(stack.size() - n, stack.size()));
                    for (int i = 0; i < n; i++) {
                        pop();
                    }
                    push(t);
                }
                case 'a' -> {
                    Object v = pop();
                    list(top()).add(v);
                }
                case 'e', 0x90 -> {
                    List<Object> items = popMark();
                    list(top()).addAll(items);
                }
                case 'd' -> push(dict(popMark(), new LinkedHashMap<>()));
                case 's' -> {
                    Object v = pop();
                    Object k = pop();
                    map(top()).put(k, v);
                }
                case 'u' -> {
                    List<Object> items = popMark();
                    dict(items, map(top()));
                }
                case 'c' -> push(new Global(line(), line()));
                case 0x93 -> {
                    String name = (String) pop();
                    push(new Global((String) pop(), name));
                }
                case 'R' -> {
                    List<Object> args = list(pop());
                    push(reduce(pop(), args));
                }
                case 0x81 -> {
                    List<Object> args = list(pop());
                    push(new Instance(global(pop()), args));
                }
                case 0x92 -> {
                    pop();
                    List<Object> args = list(pop());
                    push(new Instance(global(pop()), args));
                }
                case 'b' -> build(pop(), top());
                case 'p' -> memo.put(Long.parseLong(line()), top());
                case 'q' -> memo.put((long) (b[pos++] & 0xff), top());
                case 'r' -> memo.put((long) le(4) & 0xffffffffL, top());
                case 0x94 -> memo.put((long) memo.size(), top());
                case 'g' -> push(memo(Long.parseLong(line())));
                case 'h' -> push(memo(b[pos++] & 0xff));
                case 'j' -> push(memo(le(4) & 0xffffffffL));
                default ->
                        throw error(
                                String.format(
                                        "unsupported pickle opcode 0x%02x at offset %d", op, at));
            }
        }
    }

    private Object reduce(Object callable, List<Object> args) throws DatasetException {
        Global g = global(callable);
        String name = g.toString();
        switch (name) {
            case "numpy.core.multiarray._reconstruct":
            case "numpy._core.multiarray._reconstruct":
                return new PickledArray();
            case "numpy.dtype":
                return new Dtype((String) args.get(0));
            case "_codecs.encode":
                return ((String) args.get(0)).getBytes(StandardCharsets.ISO_8859_1);
            case "collections.defaultdict":
            case "__builtin__.dict":
            case "builtins.dict":
                return new LinkedHashMap<>();
            case "__builtin__.set":
            case "builtins.set":
                return args.isEmpty() ? new ArrayList<>() : new ArrayList<>(list(args.get(0)));
            case "copy_reg._reconstructor":
            case "copyreg._reconstructor":
                return new Instance(global(args.get(0)), List.of());
            default:
                return new Instance(g, args);
        }
    }

    private void build(Object state, Object target) throws DatasetException {
        if (target instanceof PickledArray a) {
            List<Object> s = list(state);
            int o = s.size() == 5 ? 1 : 0;
            List<Object> shape = list(s.get(o));
            a.shape = new int[shape.size()];
            for (int i = 0; i < a.shape.length; i++) {
                a.shape[i] = Math.toIntExact((Long) shape.get(i));
            }
            a.dtype = (Dtype) s.get(o + 1);
            a.fortran = Boolean.TRUE.equals(s.get(o + 2)) || Long.valueOf(1).equals(s.get(o + 2));
            a.data = s.get(o + 3);
        } else if (target instanceof Dtype d) {
            List<Object> s = list(state);
            if (s.size() > 1 && s.get(1) instanceof String order) {
                d.order = order;
            }
        } else if (target instanceof Instance i) {
            i.state =
                    state instanceof List<?> l && !l.isEmpty() && l.get(0) instanceof Map
                            ? l.get(0)
                            : state;
        }
    }

    private Map<Object, Object> dict(List<Object> items, Map<Object, Object> into) {
        for (int i = 0; i + 1 < items.size(); i += 2) {
            into.put(items.get(i), items.get(i + 1));
        }
        return into;
    }

    private Object memo(long key) throws DatasetException {
        if (!memo.containsKey(key)) {
            throw error("memo key " + key + " was never stored");
        }
        return memo.get(key);
    }

    private Global global(Object o) throws DatasetException {
        if (o instanceof Global g) {
            return g;
        }
        throw error("expected a class or function, got " + describe(o));
    }

    @SuppressWarnings("unchecked")
    private List<Object> list(Object o) throws DatasetException {
        if (o instanceof List) {
            return (List<Object>) o;
        }
        throw error("expected a tuple or list, got " + describe(o));
    }

    @SuppressWarnings("unchecked")
    private Map<Object, Object> map(Object o) throws DatasetException {
        if (o instanceof Map) {
            return (Map<Object, Object>) o;
        }
        throw error("expected a dict, got " + describe(o));
    }

    static String describe(Object o) {
        if (o instanceof Instance i) {
            return "an object of " + i.type;
        }
        return o == null ? "None" : o.getClass().getSimpleName();
    }

    private void push(Object o) {
        stack.add(o);
    }

    private Object top() throws DatasetException {
        if (stack.isEmpty() || stack.get(stack.size() - 1) == MARK) {
            throw error("stack underflow at offset " + pos);
        }
        return stack.get(stack.size() - 1);
    }

    private Object pop() throws DatasetException {
        Object o = top();
        stack.remove(stack.size() - 1);
        return o;
    }

    private List<Object> popMark() throws DatasetException {
        if (marks.isEmpty()) {
            throw error("no MARK at offset " + pos);
        }
        int m = marks.remove(marks.size() - 1);
        List<Object> items = new ArrayList<>(stack.subList(m + 1, stack.size()));
        stack.subList(m, stack.size()).clear();
        return items;
    }

    private int le(int n) {
        int v = 0;
        for (int i = 0; i < n; i++) {
            v |= (b[pos++] & 0xff) << (8 * i);
        }
        return v;
    }

    private int length8() throws DatasetException {
        long lo = le(4) & 0xffffffffL;
        long hi = le(4) & 0xffffffffL;
        if (hi != 0 || lo > Integer.MAX_VALUE) {
            throw error("object too large");
        }
        return (int) lo;
    }

    private Object longN(int n) throws DatasetException {
        byte[] be = new byte[Math.max(1, n)];
        for (int i = 0; i < n; i++) {
            be[n - 1 - i] = b[pos++];
        }
        BigInteger v = new BigInteger(be);
        if (v.bitLength() > 63) {
            throw error("integer beyond 64 bits");
        }
        return v.longValue();
    }

    private String text(int n, java.nio.charset.Charset cs) throws DatasetException {
        if (n < 0 || pos + n > b.length) {
            throw error("string runs past the end");
        }
        String s = new String(b, pos, n, cs);
        pos += n;
        return s;
    }

    private byte[] bytes(int n) throws DatasetException {
        if (n < 0 || pos + n > b.length) {
            throw error("bytes run past the end");
        }
        byte[] out = java.util.Arrays.copyOfRange(b, pos, pos + n);
        pos += n;
        return out;
    }

    private String line() throws DatasetException {
        int end = pos;
        while (end < b.length && b[end] != '\n') {
            end++;
        }
        if (end >= b.length) {
            throw error("line runs past the end");
        }
        String s = new String(b, pos, end - pos, StandardCharsets.ISO_8859_1);
        pos = end + 1;
        return s;
    }

    private DatasetException error(String reason) {
        return new DatasetException(where + ": " + reason);
    }
}
