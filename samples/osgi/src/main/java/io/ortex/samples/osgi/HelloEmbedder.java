package io.ortex.samples.osgi;

import io.ortex.api.EpDevice;
import io.ortex.api.EpDeviceListener;
import io.ortex.api.Environment;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * Embeds "hello world" with all-MiniLM-L6-v2 each time an EP with a device of the wanted type arrives, on that EP.
 * The framework properties {@code sample.model} (the model file) and {@code sample.device.type} (CPU, GPU or NPU;
 * CPU when unset) say what to run and on what.
 */
@Component
public final class HelloEmbedder {
    private final Environment environment;
    private final Path model;
    private final HardwareDeviceType wanted;
    // EP listeners must return at once: the model runs on a thread of our own
    private final ExecutorService worker = Executors.newSingleThreadExecutor();
    private final EpDeviceListener listener = new EpDeviceListener() {
        @Override
        public void added(String library, List<EpDevice> devices) {
            devices.stream().filter(d -> d.device().type() == wanted).findFirst()
                    .ifPresent(d -> worker.execute(() -> embed(d)));
        }

        @Override
        public void removed(String library, List<EpDevice> devices) {
        }
    };

    @Activate
    public HelloEmbedder(@Reference Environment environment, BundleContext context) {
        this.environment = environment;
        this.model = Path.of(Objects.requireNonNull(context.getProperty("sample.model"),
                "set the framework property sample.model to the model file"));
        String type = context.getProperty("sample.device.type");
        this.wanted = type == null ? HardwareDeviceType.CPU : HardwareDeviceType.valueOf(type);
        environment.addEpDeviceListener(listener);
        System.out.println("HelloEmbedder: waiting for an EP with a " + wanted + " device");
        listener.added("", environment.epDevices());           // one may be there already
    }

    @Deactivate
    void deactivate() {
        environment.removeEpDeviceListener(listener);
        worker.shutdownNow();
    }

    private void embed(EpDevice device) {
        SessionOptions options = new SessionOptions().appendExecutionProvider(List.of(device), Map.of());
        try (Session session = environment.createSession(model, options)) {
            Map<String, Tensor> outputs = session.run(Map.of(
                    "input_ids", Tensor.of(new long[][] {{101, 7592, 2088, 102}}),
                    "attention_mask", Tensor.of(new long[][] {{1, 1, 1, 1}}),
                    "token_type_ids", Tensor.of(new long[][] {{0, 0, 0, 0}})));
            float[] values = outputs.get("last_hidden_state").toFloatArray();
            System.out.println("HelloEmbedder: " + device.epName() + " ran " + model.getFileName()
                    + ", first values " + Arrays.toString(Arrays.copyOf(values, 3)));
        } catch (RuntimeException e) {
            System.out.println("HelloEmbedder: " + device.epName() + " failed: " + e.getMessage());
        }
    }
}
