package io.gnnstream.connectors;

import java.io.IOException;
import java.io.Reader;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * The settings every Kafka client of the project gets (sources, sinks, admin clients, the loader,
 * the runner's consumers): the bootstrap servers, plain settings ({@code --kafka-property}, never
 * secrets) and a Java properties file of settings that may be secret ({@code --kafka-config}).
 *
 * <p>Nothing of the file but its path and its keys ever leaves the process that reads it: {@link
 * #properties()} turns each of its keys into a reference that Kafka's {@code FileConfigProvider}
 * resolves when a client is created, {@code key=${file:PATH:key}}. A Kafka source or sink is built
 * on the client and serialized into the job graph with its properties, so the job graph, the
 * JobManager's and TaskManagers' logs and the Web UI hold those references, and each process that
 * creates a Kafka client (the client, the JobManager's source enumerators, the TaskManagers'
 * readers and writers) reads the file itself: the file must be at the same path on every host.
 */
public final class KafkaClientConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The name under which the file's references are resolved. */
    private static final String PROVIDER = "gnnstreamfile";

    private final String bootstrapServers;
    private final TreeMap<String, String> settings;
    private final String file;

    private KafkaClientConfig(String bootstrapServers, Map<String, String> settings, String file) {
        this.bootstrapServers = bootstrapServers;
        this.settings = new TreeMap<>(settings);
        this.file = file;
    }

    /** A plain client of {@code bootstrapServers}: no other settings. */
    public static KafkaClientConfig of(String bootstrapServers) {
        return new KafkaClientConfig(bootstrapServers, Map.of(), null);
    }

    /**
     * The same, with {@code settings} (plain values, never secrets) and the settings file {@code
     * file} (null: none), whose readability is checked here.
     */
    public KafkaClientConfig with(Map<String, String> settings, String file) {
        if (file != null) {
            keysOf(file);
        }
        return new KafkaClientConfig(bootstrapServers, settings, file);
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The plain settings, by key. */
    public Map<String, String> settings() {
        return Collections.unmodifiableMap(settings);
    }

    /** The settings file's path, or null. */
    public String file() {
        return file;
    }

    /**
     * The client properties: {@code bootstrap.servers}, the plain settings and, for each key of the
     * file, a reference to its value there (which wins over a plain setting of the same key),
     * resolved by the client that is created with them.
     */
    public Properties properties() {
        Properties p = new Properties();
        p.setProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        settings.forEach(p::setProperty);
        if (file != null) {
            String path = Path.of(file).toAbsolutePath().toString();
            for (String key : keysOf(file)) {
                p.setProperty(key, "${" + PROVIDER + ":" + path + ":" + key + "}");
            }
            p.setProperty("config.providers", PROVIDER);
            p.setProperty(
                    "config.providers." + PROVIDER + ".class",
                    "org.apache.kafka.common.config.provider.FileConfigProvider");
        }
        return p;
    }

    /** The keys of a settings file; its values are not kept. */
    private static java.util.Set<String> keysOf(String file) {
        Properties read = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
            read.load(in);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "cannot read the Kafka client settings file " + file + ": " + e, e);
        }
        java.util.Set<String> keys = new java.util.TreeSet<>(read.stringPropertyNames());
        if (keys.contains("config.providers")) {
            throw new IllegalArgumentException(
                    "the Kafka client settings file "
                            + file
                            + " must not set config.providers (its values are read through one)");
        }
        return keys;
    }

    @Override
    public String toString() {
        return bootstrapServers
                + (settings.isEmpty() ? "" : " " + settings.keySet())
                + (file == null ? "" : " settings file " + file);
    }
}
