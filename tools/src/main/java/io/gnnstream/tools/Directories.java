package io.gnnstream.tools;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.Predicate;

/** Scratch-directory handling shared by the commands that own a work directory. */
public final class Directories {

    private Directories() {}

    /**
     * Deletes {@code dir} and everything below it; a missing directory is fine, and so are files
     * that vanish meanwhile (Flink discards a finished job's checkpoints asynchronously).
     */
    public static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        Files.walkFileTree(
                dir,
                new VanishingFilesVisitor() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
                            throws IOException {
                        Files.deleteIfExists(file);
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path directory, IOException e)
                            throws IOException {
                        if (e != null && !(e instanceof NoSuchFileException)) {
                            throw e;
                        }
                        Files.deleteIfExists(directory);
                        return FileVisitResult.CONTINUE;
                    }
                });
    }

    /**
     * Total size of the regular files below {@code dir} that {@code counted} accepts; files that
     * vanish while it walks do not count.
     */
    public static long bytesOf(Path dir, Predicate<Path> counted) throws IOException {
        long[] bytes = {0};
        Files.walkFileTree(
                dir,
                new VanishingFilesVisitor() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                        if (attributes.isRegularFile() && counted.test(file)) {
                            bytes[0] += attributes.size();
                        }
                        return FileVisitResult.CONTINUE;
                    }
                });
        return bytes[0];
    }

    /** Skips files deleted between being listed and being visited; other failures still throw. */
    private static class VanishingFilesVisitor extends SimpleFileVisitor<Path> {
        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof NoSuchFileException) {
                return FileVisitResult.CONTINUE;
            }
            throw e;
        }
    }
}
