package io.gnnstream.jobs;

import java.io.Serializable;
import java.util.Collection;
import java.util.function.Predicate;

/**
 * A constraint on an option's value, written once next to the option's declaration and applied both
 * when a flag is parsed and when {@link TrainingJob#validate} checks a configuration.
 *
 * @param <T> the option's value type
 */
@FunctionalInterface
public interface OptionCheck<T> extends Serializable {

    /**
     * What is wrong with {@code value} (a phrase such as "must be positive"), or null when it is
     * fine.
     */
    String problem(T value);

    /** Accepts every value. */
    static <T> OptionCheck<T> any() {
        return value -> null;
    }

    /** {@code value} satisfies {@code ok}; otherwise the problem is {@code requirement}. */
    static <T> OptionCheck<T> that(Predicate<T> ok, String requirement) {
        return value -> ok.test(value) ? null : requirement;
    }

    static <N extends Number> OptionCheck<N> positive() {
        return that(n -> n.doubleValue() > 0, "must be positive");
    }

    static <N extends Number> OptionCheck<N> nonNegative() {
        return that(n -> n.doubleValue() >= 0, "must be >= 0");
    }

    /** Every element of a list satisfies {@code element}. */
    static <E, C extends Collection<E>> OptionCheck<C> each(OptionCheck<E> element, String what) {
        return values -> {
            for (E e : values) {
                String problem = element.problem(e);
                if (problem != null) {
                    return what + " " + problem + ", got " + e;
                }
            }
            return null;
        };
    }

    /** Both checks hold; the first problem is reported. */
    default OptionCheck<T> and(OptionCheck<? super T> other) {
        return value -> {
            String problem = problem(value);
            return problem != null ? problem : other.problem(value);
        };
    }
}
