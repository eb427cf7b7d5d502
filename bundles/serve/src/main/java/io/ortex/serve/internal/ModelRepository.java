package io.ortex.serve.internal;

import io.ortex.api.Environment;
import io.ortex.api.EpDevice;
import io.ortex.api.EpDeviceListener;
import io.ortex.api.Names;
import io.ortex.api.Session;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The model repository: a folder {@code <root>/<name>/<version>/model.onnx} (with an optional
 * {@code <root>/<name>/config.properties}, see {@link ModelConfig}), watched by polling. Of each model the highest
 * numbered version folder holding a {@code model.onnx} is served. A model folder that appears is loaded once its files
 * stayed unchanged for one poll; a new version (or changed files) is loaded beside the current one and then takes
 * over, the old version closing when its last request ends; a folder that disappears is unloaded the same way. A
 * version that fails to load is reported (index, shell) and not tried again until its files change; the version
 * before it goes on serving. Requests find models without locking; loading and unloading are serialized.
 *
 * <p>The repository follows the runtime's EPs once started: when an EP library a loaded version runs on begins its
 * removal, the model is loaded again on the EPs that remain and the old version closes after its running requests,
 * so the removal's drain is not held up by the server; a model that cannot be loaded without that EP becomes
 * unavailable (and its old version closes the same way). When EP devices arrive, the models that failed to load are
 * tried again.
 */
public final class ModelRepository implements AutoCloseable {
    /** The file of a version folder that holds the model. */
    public static final String MODEL_FILE = "model.onnx";

    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.serve.models");
    /** Model names: letters, digits, '_', '-' and '.', starting with a letter or digit, at most 128 characters. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");
    /** Version folders: a positive decimal number. */
    private static final Pattern VERSION = Pattern.compile("[0-9]{1,18}");

    private final Environment environment;
    private final Path root;
    private final Map<String, ModelState> models = new ConcurrentSkipListMap<>();
    private final Object lock = new Object();
    private final EpDeviceListener epListener = new EpListener();
    /** Replaced or unloaded versions that may still hold requests; pruned as they close. */
    private final List<ServedModel> draining = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** The model files lying at the top of the folder that a warning named already (they are not served). */
    private final Set<String> strayFilesNamed = new HashSet<>();
    private ScheduledExecutorService watcher;
    private volatile boolean scanned;
    private boolean closed;

    /**
     * Creates a repository; nothing is loaded before {@link #start(long)} or {@link #scan()}.
     *
     * @param environment the environment sessions are created in
     * @param root the models folder
     */
    public ModelRepository(Environment environment, Path root) {
        this.environment = Objects.requireNonNull(environment, "environment");
        this.root = root.toAbsolutePath().normalize();
    }

    /**
     * Tells whether a name is a valid model name (no path separators, no {@code ..}, no control characters).
     *
     * @param name the name
     * @return true when valid
     */
    public static boolean validName(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    /**
     * Tells whether a text is a valid version.
     *
     * @param version the text
     * @return true when valid
     */
    public static boolean validVersion(String version) {
        return version != null && VERSION.matcher(version).matches();
    }

    /**
     * Gets the models folder.
     *
     * @return the absolute folder
     */
    public Path root() {
        return root;
    }

    /**
     * Starts watching the folder on a thread of its own: it first loads what the folder holds (the repository is
     * {@link #ready()} once that is done), then polls it.
     *
     * @param pollMillis the time between two polls
     */
    public void start(long pollMillis) {
        synchronized (lock) {
            watcher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "ortex-models-watcher");
                t.setDaemon(true);
                return t;
            });
            watcher.execute(() -> poll(true));
            environment.addEpDeviceListener(epListener);
            watcher.scheduleWithFixedDelay(() -> poll(false), pollMillis, pollMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void poll(boolean trustNow) {
        try {
            synchronized (lock) {
                scan(trustNow);
            }
        } catch (RuntimeException e) {
            LOG.warn("scanning {} failed: {}", root, Names.oneLine(String.valueOf(e)));
        }
    }

    /** Runs a task on the watcher thread under the lock, unless the repository is not started or closed. */
    private void submit(Runnable task) {
        ScheduledExecutorService w = watcher;
        if (w == null) {
            return;
        }
        try {
            w.execute(() -> {
                try {
                    synchronized (lock) {
                        if (!closed) {
                            task.run();
                        }
                    }
                } catch (RuntimeException e) {
                    LOG.warn("following an EP change failed: {}", Names.oneLine(String.valueOf(e)));
                }
            });
        } catch (RejectedExecutionException stopped) {
            // closed meanwhile: nothing to follow
        }
    }

    /** Loads again, on the remaining EPs, every model whose current version runs on one of the EPs being removed. */
    private void replaceModelsOn(String library, Set<String> eps) {
        for (ModelState s : models.values()) {
            ServedModel m = s.current;
            Candidate c = s.loaded;
            if (m == null || c == null || m.session().executionProviders().stream().noneMatch(eps::contains)) {
                continue;
            }
            LOG.info("model {} version {} runs on EP library {}, which is being removed: loading it again on the "
                    + "remaining EPs", Names.quote(s.name), m.version(), Names.quote(library));
            load(s, root.resolve(s.name), c);
            if (s.current == m) {
                s.failure = "its EP library " + Names.quote(library) + " is being removed, and without it: "
                        + s.failure;
                retire(s, "its EP library " + Names.quote(library) + " is being removed");
            }
        }
    }

    /** Lets the next poll try again the models that failed to load: an EP they needed may have arrived. */
    private void retryFailed() {
        for (ModelState s : models.values()) {
            if (s.current == null && s.failed != null && !s.unloadedByRequest) {
                s.failed = null;
            }
        }
    }

    /** Hears the runtime's EP devices come and go; hands the work to the watcher thread and returns at once. */
    private final class EpListener implements EpDeviceListener {
        @Override
        public void added(String library, List<EpDevice> devices) {
            submit(ModelRepository.this::retryFailed);
        }

        @Override
        public void removed(String library, List<EpDevice> devices) {
            Set<String> eps = devices.stream().map(EpDevice::epName).collect(Collectors.toSet());
            submit(() -> replaceModelsOn(library, eps));
        }
    }

    /** Scans the folder once, loading every model whose files are there now (for tests and the first scan). */
    public void scan() {
        synchronized (lock) {
            scan(true);
        }
    }

    /**
     * Tells whether the first scan has finished.
     *
     * @return true once the models present at start were loaded (or failed)
     */
    public boolean ready() {
        return scanned;
    }

    private void scan(boolean trustNow) {
        if (closed) {
            return;
        }
        Set<String> seen = new HashSet<>();
        if (Files.isDirectory(root)) {
            try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root)) {
                for (Path dir : dirs) {
                    String name = dir.getFileName().toString();
                    if (validName(name) && Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                        seen.add(name);
                        refresh(name, dir, trustNow, false);
                    } else if (name.endsWith(".onnx") && Files.isRegularFile(dir) && strayFilesNamed.add(name)) {
                        // a model file where a model folder belongs, as a storage URI naming one file leaves it
                        LOG.warn("{} in the models folder {} is not served: a model is a folder NAME/VERSION/{}",
                                Names.quote(name), root, MODEL_FILE);
                    }
                }
            } catch (IOException e) {
                LOG.warn("cannot list {}: {}", root, Names.oneLine(String.valueOf(e)));
                return;
            }
        }
        for (ModelState s : models.values()) {
            if (!seen.contains(s.name)) {
                models.remove(s.name);
                retire(s, "its folder is gone");
            }
        }
        scanned = true;
    }

    /**
     * Brings one model up to date with its folder.
     *
     * @param force load even when the same files failed before or were unloaded by request
     */
    private void refresh(String name, Path dir, boolean trustNow, boolean force) {
        ModelState s = models.computeIfAbsent(name, ModelState::new);
        if (s.unloadedByRequest && !force) {
            return;
        }
        Candidate c = latestVersion(dir);
        if (c == null) {
            s.failure = "no version folder holds a " + MODEL_FILE;
            s.pending = null;
            if (s.current != null) {
                retire(s, "no version folder holds a " + MODEL_FILE);
            }
            return;
        }
        if (s.current != null && c.equals(s.loaded)) {
            return;
        }
        if (!trustNow && !c.equals(s.pending)) {
            s.pending = c;  // wait one poll: a copy may still be under way
            return;
        }
        if (c.equals(s.failed) && !force) {
            return;
        }
        load(s, dir, c);
    }

    private void load(ModelState s, Path dir, Candidate c) {
        Session session;
        ModelConfig config;
        try {
            config = ModelConfig.read(dir, environment);
            session = environment.createSession(dir.resolve(c.version).resolve(MODEL_FILE), config.options());
        } catch (IOException | RuntimeException e) {
            s.failure = "version " + c.version + ": " + Names.oneLine(e.getMessage() == null ? e.toString()
                    : e.getMessage());
            s.failed = c;
            LOG.warn("model {} version {} failed to load: {}", Names.quote(s.name), c.version, s.failure);
            return;
        }
        ServedModel old = s.current;
        s.current = new ServedModel(s.name, c.version, session, config.batching());
        s.loaded = c;
        s.failed = null;
        s.failure = null;
        s.unloadedByRequest = false;
        LOG.info("model {} version {} loaded (EPs {})", Names.quote(s.name), c.version,
                session.executionProviders());
        if (old != null) {
            LOG.info("model {} version {} replaced by version {}; it closes after its {} running requests",
                    Names.quote(s.name), old.version(), c.version, old.inFlight());
            drain(old);
        }
    }

    /** Gives the repository's reference to a replaced or unloaded version, which is listed until it closes. */
    private void drain(ServedModel old) {
        old.release();
        if (!old.closed()) {
            draining.add(old);
        }
    }

    private void retire(ModelState s, String why) {
        ServedModel old = s.current;
        s.current = null;
        s.loaded = null;
        if (old != null) {
            LOG.info("model {} version {} unloaded ({}); it closes after its {} running requests",
                    Names.quote(s.name), old.version(), why, old.inFlight());
            drain(old);
        }
    }

    private static Candidate latestVersion(Path dir) {
        long best = -1;
        Path bestFile = null;
        try (DirectoryStream<Path> versions = Files.newDirectoryStream(dir)) {
            for (Path v : versions) {
                String name = v.getFileName().toString();
                if (!validVersion(name)) {
                    continue;
                }
                long number = Long.parseLong(name);
                Path model = v.resolve(MODEL_FILE);
                if (number > best && Files.isRegularFile(model)) {
                    best = number;
                    bestFile = model;
                }
            }
        } catch (IOException e) {
            return null;
        }
        if (bestFile == null) {
            return null;
        }
        return new Candidate(bestFile.getParent().getFileName().toString(), stamp(bestFile),
                stamp(dir.resolve(ModelConfig.FILE)));
    }

    private static String stamp(Path file) {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return a.size() + "@" + a.lastModifiedTime().toMillis() + "#" + a.fileKey();
        } catch (IOException e) {
            return "absent";
        }
    }

    /**
     * Takes a reference to a model's current version for one request.
     *
     * @param name the model's name
     * @param version the version asked for, or null for the current one
     * @return the loaded version: call {@link #release(ServedModel)} when the request ends
     * @throws ProtocolException 404 when there is no such model or version, 503 when it is not loaded
     */
    public ServedModel acquire(String name, String version) {
        ModelState s = models.get(name);
        if (s == null) {
            throw new ProtocolException(ProtocolException.NOT_FOUND, "no model " + Names.quote(name)
                    + " in the repository");
        }
        for (int attempt = 0; attempt < 16; attempt++) {
            ServedModel m = s.current;
            if (m == null) {
                throw new ProtocolException(ProtocolException.UNAVAILABLE, "model " + Names.quote(name)
                        + " is not loaded" + (s.failure == null ? "" : ": " + s.failure));
            }
            if (version != null && !version.equals(m.version())) {
                throw new ProtocolException(ProtocolException.NOT_FOUND, "model " + Names.quote(name) + " has no "
                        + "version " + Names.quote(version) + " loaded (version " + m.version() + " is)");
            }
            if (m.acquire()) {
                return m;
            }
            Thread.onSpinWait();  // it was just replaced: take the new one
        }
        throw new ProtocolException(ProtocolException.UNAVAILABLE, "model " + Names.quote(name)
                + " is being replaced; try again");
    }

    /**
     * Gives back a reference taken by {@link #acquire(String, String)}.
     *
     * @param model the loaded version
     */
    public void release(ServedModel model) {
        model.release();
    }

    /**
     * Loads a model now, even one unloaded by request or whose files failed before ({@code .../load}).
     *
     * @param name the model's name
     * @throws ProtocolException 400 when there is no such folder or it fails to load
     */
    public void load(String name) {
        synchronized (lock) {
            Path dir = root.resolve(name);
            if (!validName(name) || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw ProtocolException.badRequest("no model folder " + Names.quote(name) + " in " + root);
            }
            refresh(name, dir, true, true);
            ModelState s = models.get(name);
            if (s.current == null || s.failure != null) {
                throw ProtocolException.badRequest("model " + Names.quote(name) + " failed to load: " + s.failure);
            }
        }
    }

    /**
     * Unloads a model ({@code .../unload}): requests running on it finish, and the folder is not loaded again until
     * {@link #load(String)}.
     *
     * @param name the model's name
     * @throws ProtocolException 400 when there is no such model
     */
    public void unload(String name) {
        synchronized (lock) {
            ModelState s = models.get(name);
            if (s == null) {
                throw ProtocolException.badRequest("no model " + Names.quote(name) + " in the repository");
            }
            s.unloadedByRequest = true;
            s.pending = null;
            retire(s, "by request");
        }
    }

    /**
     * Lists the models with their state.
     *
     * @return one entry per model folder, by name
     */
    public List<Entry> index() {
        List<Entry> entries = new ArrayList<>();
        for (ModelState s : models.values()) {
            ServedModel m = s.current;
            String state = m != null ? "READY" : s.unloadedByRequest ? "UNLOADED" : "UNAVAILABLE";
            String version = m != null ? m.version() : s.failed != null ? s.failed.version : "";
            entries.add(new Entry(s.name, version, state, s.failure == null ? "" : s.failure,
                    m == null ? 0 : m.queued(), m == null ? 0 : m.inFlight(),
                    m == null ? List.of() : m.session().executionProviders()));
        }
        return entries;
    }

    /**
     * Lists every loaded version: the index's entries, and after them each replaced or unloaded version that still
     * answers its running and queued requests, in the state {@code DRAINING}.
     *
     * @return the entries
     */
    public List<Entry> versions() {
        List<Entry> entries = index();
        draining.removeIf(ServedModel::closed);
        for (ServedModel m : draining) {
            int inFlight = m.inFlight();
            if (!m.closed()) {
                entries.add(new Entry(m.name(), m.version(), "DRAINING", "", m.queued(), inFlight,
                        m.executionProviders()));
            }
        }
        return entries;
    }

    /**
     * Unloads every model (their sessions close when their last requests end) and stops watching.
     */
    @Override
    public void close() {
        ScheduledExecutorService w;
        synchronized (lock) {
            closed = true;
            w = watcher;
            if (w != null) {
                environment.removeEpDeviceListener(epListener);
            }
            for (ModelState s : models.values()) {
                retire(s, "the server stops");
            }
            models.clear();
        }
        if (w != null) {
            w.shutdownNow();
            try {
                w.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A model in the index.
     *
     * @param name the model's name
     * @param version the version served, or the one that failed, or empty
     * @param state {@code READY}, {@code UNAVAILABLE} or {@code UNLOADED}; {@code DRAINING} in {@link #versions()}
     * @param reason why it is not ready, or empty
     * @param queued requests of the version waiting in its batching queue now (0 when it does not batch)
     * @param inFlight requests the version holds now: running, in a batch being formed, or queued
     * @param executionProviders the version's EPs in priority order
     */
    public record Entry(String name, String version, String state, String reason, int queued, int inFlight,
            List<String> executionProviders) {
        /**
         * Copies the list.
         *
         * @param name the model's name
         * @param version the version served, or the one that failed, or empty
         * @param state {@code READY}, {@code UNAVAILABLE} or {@code UNLOADED}
         * @param reason why it is not ready, or empty
         * @param queued requests waiting in the version's batching queue now
         * @param inFlight requests the version holds now
         * @param executionProviders the version's EPs in priority order
         */
        public Entry {
            executionProviders = List.copyOf(executionProviders);
        }
    }

    /** The files a version is loaded from: what changes when they change. */
    private record Candidate(String version, String model, String config) {
    }

    /** What the repository knows of one model folder; changed under the lock, read by requests. */
    private static final class ModelState {
        final String name;
        volatile ServedModel current;
        volatile Candidate loaded;
        volatile Candidate pending;
        volatile Candidate failed;
        volatile String failure;
        volatile boolean unloadedByRequest;

        ModelState(String name) {
            this.name = name;
        }
    }
}
