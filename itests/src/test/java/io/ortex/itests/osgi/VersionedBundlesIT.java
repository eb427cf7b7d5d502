package io.ortex.itests.osgi;

import static org.junit.Assert.assertEquals;

import io.ortex.api.Environment;
import io.ortex.api.EpLibraryInfo;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.Version;

/**
 * Two versions of one EP bundle installed side by side, as an update installed beside the old one: the newer serves
 * new sessions at once, the older drains until its sessions close (its bundle staying installed), and when the newer
 * goes the older serves again.
 */
@RunWith(PaxExam.class)
public class VersionedBundlesIT extends OsgiTestSupport {
    private static Session openOnExample(Environment env) {
        Session s = env.createSession(TinyModel.bytes(),
                new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU));
        assertEquals(List.of(EXAMPLE_EP, CPU_EP), s.executionProviders());
        return s;
    }

    private static List<EpLibraryInfo> exampleLibraries(Environment env) {
        return env.epLibraries().stream().filter(l -> l.name().equals(EXAMPLE_BUNDLE)).toList();
    }

    private static EpLibraryInfo inState(Environment env, EpLibraryInfo.State state) {
        return exampleLibraries(env).stream().filter(l -> l.state() == state).findFirst().orElse(null);
    }

    /** Copies the example bundle with another Bundle-Version. */
    private static Path withVersion(Path dir, String version) throws Exception {
        Path jar = dir.resolve("example-" + version + ".jar");
        try (InputStream raw = new URL(exampleJar()).openStream(); JarInputStream in = new JarInputStream(raw)) {
            Manifest manifest = new Manifest(in.getManifest());
            manifest.getMainAttributes().put(new Attributes.Name("Bundle-Version"), version);
            try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file,
                    manifest)) {
                for (JarEntry e = in.getNextJarEntry(); e != null; e = in.getNextJarEntry()) {
                    out.putNextEntry(new JarEntry(e.getName()));
                    in.transferTo(out);
                    out.closeEntry();
                }
            }
        }
        return jar;
    }

    @Test
    public void theNewerVersionServesNewSessionsWhileTheOlderDrains() throws Exception {
        configure("virtual.grants", EXAMPLE_BUNDLE, "drain.limit.seconds", 60L, "drain.outcome", "fail");
        Environment env = environment();
        await(10_000, "the virtual NPU is offered", () -> devicesOf(env, EXAMPLE_EP).size() == 1);
        Bundle older = installed(EXAMPLE_BUNDLE);
        Session old = openOnExample(env);
        runAndCheck(old, 1);

        Path dir = Files.createTempDirectory("ortex-versions");
        Bundle newer = context.installBundle(withVersion(dir, "9.0.0").toUri().toString());
        assertEquals(new Version(9, 0, 0), newer.getVersion());
        newer.start();
        await(10_000, "the older version drains beside the newer",
                () -> inState(env, EpLibraryInfo.State.DRAINING) != null
                        && inState(env, EpLibraryInfo.State.ACTIVE) != null);
        assertEquals(List.of(old.id()), inState(env, EpLibraryInfo.State.DRAINING).holders());
        assertEquals(1, devicesOf(env, EXAMPLE_EP).size());

        try (Session fresh = openOnExample(env)) {
            runAndCheck(fresh, 2);
            assertEquals("the new session holds the newer version", List.of(fresh.id()),
                    inState(env, EpLibraryInfo.State.ACTIVE).holders());
            runAndCheck(old, 3);
            old.close();
            await(10_000, "the older version is released once its session closed",
                    () -> exampleLibraries(env).size() == 1);
            assertEquals(Bundle.ACTIVE, older.getState());
            runAndCheck(fresh, 4);
        }

        newer.uninstall();
        await(10_000, "the older version serves again", () -> inState(env, EpLibraryInfo.State.ACTIVE) != null
                && devicesOf(env, EXAMPLE_EP).size() == 1);
        try (Session again = openOnExample(env)) {
            runAndCheck(again, 5);
        }
    }
}
