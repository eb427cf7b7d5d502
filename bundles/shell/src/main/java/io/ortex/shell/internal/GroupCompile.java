package io.ortex.shell.internal;

import io.ortex.api.CompileFlag;
import io.ortex.api.CompileResult;
import io.ortex.api.Environment;
import io.ortex.api.Names;
import io.ortex.api.SessionOptions;
import io.ortex.onnx.ModelReader;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code ortex compile MODEL... -o DIR --share}: compiles a group of models with the same EPs and options, in one
 * environment, as ONNX Runtime's {@code ep_weight_sharing_ctx_gen} does: every model with
 * {@code ep.share_ep_contexts=1} into {@code DIR/<model>_ctx.onnx}, the last one also with
 * {@code ep.stop_share_ep_contexts=1}, which writes the group's one shared context binary
 * ({@code <first model>_ctx_shared.bin}). Reports each file and its size and what sharing saved: the bytes the
 * group's models would hold if each kept its own copy of the entries it uses, against the binary's. Groups compiled
 * at the same time in one process (the shell's commands share one runtime) run one after the other, so that no model
 * joins another command's group. The group is compiled into a hidden folder inside {@code DIR} and moves into
 * {@code DIR} only when every model compiled: a group that fails leaves {@code DIR} as it was. Stateless.
 */
final class GroupCompile {
    private static final Object ONE_GROUP_AT_A_TIME = new Object();

    private GroupCompile() {
    }

    /**
     * Compiles the group.
     *
     * @param o the parsed options of {@code compile}, with {@code --share}
     * @param out where the report goes
     * @return the exit status
     */
    static int run(Options o, PrintStream out) {
        if (o.positional().isEmpty()) {
            throw new UsageException("compile --share needs at least one MODEL");
        }
        for (String key : List.of(SessionOptions.EP_SHARE_EP_CONTEXTS, SessionOptions.EP_STOP_SHARE_EP_CONTEXTS,
                SessionOptions.EP_CONTEXT_FILE_PATH)) {
            if (o.keyValues("--config").containsKey(key)) {
                throw new UsageException("--config " + key + ": compile --share sets it for each model itself");
            }
        }
        Path dir = Path.of(CompileCommand.output(o, "compile --share needs the output folder: -o DIR"));
        if (!Files.isDirectory(dir) && dir.getFileName() != null
                && dir.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".onnx")) {
            throw new UsageException("-o " + Names.quote(dir.toString()) + ": with --share the output is a folder"
                    + " for the group's compiled models, not a model file");
        }
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new UsageException("-o " + Names.quote(dir.toString()) + ": with --share the output is a folder,"
                    + " and this is a file");
        }
        Map<Path, Path> targets = targets(o.positional(), dir);
        Set<CompileFlag> flags = CompileCommand.flags(o.get("--flags", ""));
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UsageException("-o " + Names.quote(dir.toString()) + ": cannot create the folder: "
                    + e.getMessage());
        }
        List<Path> written;
        long t0 = System.nanoTime();
        Map<String, Integer> nodes = new LinkedHashMap<>();
        Path staging = staging(dir);
        try {
            List<CompileResult> results = compile(o, targets, flags, staging);
            for (CompileResult r : results) {
                r.epContextNodes().forEach((ep, n) -> nodes.merge(ep, n, Integer::sum));
            }
            written = moveInto(staging, dir);
        } finally {
            deleteTree(staging);
        }
        Table.line(out, "compiled %d model%s into %s in %.1f ms, sharing EP contexts", targets.size(),
                targets.size() == 1 ? "" : "s", dir, (System.nanoTime() - t0) / 1e6);
        if (nodes.isEmpty()) {
            out.println("  no EP compiled a node: the models were written with their nodes as they were");
        }
        nodes.forEach((ep, n) -> Table.line(out, "  %s: %d EPContext node%s", ep, n, n == 1 ? "" : "s"));
        for (Path f : written) {
            Table.line(out, "  wrote %s (%d bytes)", f, size(f));
        }
        report(out, new ArrayList<>(targets.values()));
        return 0;
    }

    /**
     * Compiles every model of the group into {@code staging}, one environment for the group. Groups of concurrent
     * commands run one after the other.
     */
    private static List<CompileResult> compile(Options o, Map<Path, Path> targets, Set<CompileFlag> flags,
                                               Path staging) {
        List<CompileResult> results = new ArrayList<>();
        synchronized (ONE_GROUP_AT_A_TIME) {
            try (Environment env = SessionSettings.environment(o)) {
                int i = 0;
                for (Map.Entry<Path, Path> e : targets.entrySet()) {
                    SessionOptions so = SessionSettings.sessionOptions(o, env)
                            .config(SessionOptions.EP_SHARE_EP_CONTEXTS, "1");
                    if (++i == targets.size()) {
                        so.config(SessionOptions.EP_STOP_SHARE_EP_CONTEXTS, "1");
                    }
                    Path target = staging.resolve(e.getValue().getFileName());
                    results.add(env.modelCompiler(so).inputModel(e.getKey()).embedMode(o.has("--embed"))
                            .flags(flags).compileToFile(target));
                }
            }
        }
        return results;
    }

    /**
     * Makes the folder the group is compiled into before its files move to {@code dir}: inside {@code dir}, so that
     * the moves stay on one file system, and hidden. A group that fails part-way leaves nothing in {@code dir}, and
     * files a group compiled earlier stay as they were.
     */
    private static Path staging(Path dir) {
        try {
            return Files.createTempDirectory(dir, ".ortex-compile-");
        } catch (IOException e) {
            throw new UsageException("-o " + Names.quote(dir.toString()) + ": cannot write into the folder: "
                    + e.getMessage());
        }
    }

    /**
     * Moves every file of {@code staging} into {@code dir}, replacing files of the same name, the shared context
     * binary first so that no compiled model ever names a binary that is not there yet.
     *
     * @return the files in {@code dir}, in the order they moved
     */
    private static List<Path> moveInto(Path staging, Path dir) {
        List<Path> moved = new ArrayList<>();
        try (var files = Files.list(staging)) {
            List<Path> sorted = files.sorted(java.util.Comparator
                    .comparing((Path f) -> f.getFileName().toString().endsWith(".onnx"))
                    .thenComparing(f -> f.getFileName().toString())).toList();
            for (Path f : sorted) {
                Path target = dir.resolve(f.getFileName().toString());
                try {
                    Files.move(f, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(f, target, StandardCopyOption.REPLACE_EXISTING);
                }
                moved.add(target);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot move the compiled group into " + dir, e);
        }
        return moved;
    }

    /** Deletes a staging folder and what is left in it; a file that cannot be deleted stays. */
    private static void deleteTree(Path folder) {
        if (!Files.exists(folder)) {
            return;
        }
        try (var files = Files.walk(folder)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            // a leftover hidden folder is harmless: its name says what it is
        }
    }

    /** The compiled model of each source model, {@code DIR/<stem>_ctx.onnx}; two models may not share a name. */
    private static Map<Path, Path> targets(List<String> models, Path dir) {
        Map<Path, Path> targets = new LinkedHashMap<>();
        Map<Path, String> byTarget = new HashMap<>();
        for (String m : models) {
            Path model = Path.of(m);
            if (!Files.isRegularFile(model)) {
                throw new UsageException(Names.quote(m) + ": no such model file");
            }
            String name = model.getFileName().toString();
            int dot = name.lastIndexOf('.');
            Path target = dir.resolve((dot > 0 ? name.substring(0, dot) : name) + "_ctx.onnx");
            String before = byTarget.putIfAbsent(target, m);
            if (before != null) {
                throw new UsageException(Names.quote(before) + " and " + Names.quote(m) + " would both be compiled"
                        + " to " + target + "; give the models different names");
            }
            targets.put(model, target);
        }
        return targets;
    }

    /**
     * Prints the shared binary's size against what the models would hold unshared: each model's entries (its
     * payloads and the shared blobs its EPContext nodes name) counted once per model.
     */
    private static void report(PrintStream out, List<Path> compiled) {
        Map<Path, ContextBinaryIndex> binaries = new LinkedHashMap<>();
        long unshared = 0;
        for (Path model : compiled) {
            ModelInspection m = ModelInspection.of(model, ModelReader.read(model));
            for (ModelInspection.Binary b : m.binaries()) {
                if (b.present() && b.index() != null && !b.index().lengths().isEmpty()) {
                    binaries.putIfAbsent(b.path(), b.index());
                }
            }
            Set<String> keys = new LinkedHashSet<>();
            for (ModelInspection.Context c : m.contexts()) {
                if (!c.contextKey().isEmpty()) {
                    keys.add(c.contextKey());
                }
                keys.addAll(c.sharedBlobs());
            }
            for (String k : keys) {
                for (ContextBinaryIndex index : binaries.values()) {
                    Long n = index.lengths().get(k);
                    if (n != null) {
                        unshared += n;
                        break;
                    }
                }
            }
        }
        for (Map.Entry<Path, ContextBinaryIndex> e : binaries.entrySet()) {
            long stored = e.getValue().lengths().values().stream().mapToLong(Long::longValue).sum();
            Table.line(out, "  shared context binary %s: %d entries, %d bytes of entries stored once instead of %d:"
                    + " sharing saved %d bytes", e.getKey().getFileName(), e.getValue().entries(), stored, unshared,
                    unshared - stored);
        }
    }

    private static long size(Path f) {
        try {
            return Files.size(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
