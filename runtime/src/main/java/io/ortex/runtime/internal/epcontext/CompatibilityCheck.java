package io.ortex.runtime.internal.epcontext;

import io.ortex.api.CompiledModelCompatibility;
import io.ortex.api.ErrorCode;
import io.ortex.api.HardwareDevice;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.EpFactory;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Judges a compiled model's compatibility strings ({@code ep_compatibility_info.<EP>} metadata) before any EP sees
 * the model, as ONNX Runtime does: each EP of the session whose string the model holds asks its factory;
 * {@code NOT_APPLICABLE} and {@code SUPPORTED_OPTIMAL} go on, {@code SUPPORTED_PREFER_RECOMPILATION} logs a warning
 * or fails with {@code session.fail_on_suboptimal_compiled_model=1}, {@code UNSUPPORTED} fails, and a validator that
 * throws fails naming the EP. Stateless.
 */
public final class CompatibilityCheck {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.compatibility");

    private CompatibilityCheck() {
    }

    /**
     * One EP of a session: its factory and the hardware devices it was chosen for.
     *
     * @param factory the factory
     * @param devices the devices
     */
    public record Candidate(EpFactory factory, List<HardwareDevice> devices) {
    }

    /**
     * Checks a model for the EPs of a session.
     *
     * @param metadata the model's metadata
     * @param what the model, for messages
     * @param eps the session's EPs
     * @param failOnSuboptimal whether {@code SUPPORTED_PREFER_RECOMPILATION} fails
     * @throws OrtexException when an EP does not support the model, or prefers recompilation and that fails
     */
    public static void check(Map<String, String> metadata, String what, List<Candidate> eps,
                             boolean failOnSuboptimal) {
        for (Candidate c : eps) {
            String name = c.factory().name();
            String info = metadata.get(SessionOptions.EP_COMPATIBILITY_INFO_PREFIX + name);
            if (info == null) {
                continue;
            }
            CompiledModelCompatibility verdict = judge(c.factory(), c.devices(), info);
            switch (verdict) {
                case UNSUPPORTED:
                    LOG.info("{} is incompatible: EP {} judges it {} (compiled for {})", what, name, verdict,
                            Names.quote(info));
                    throw new OrtexException(ErrorCode.FAIL, "Compiled model is not supported by execution provider: "
                            + name + " (" + what + ", compiled for " + Names.quote(info)
                            + "); re-compile the source model");
                case SUPPORTED_PREFER_RECOMPILATION:
                    String msg = what + " was compiled for " + Names.quote(info) + "; " + name
                            + " runs it but recommends"
                            + " re-compiling it";
                    if (failOnSuboptimal) {
                        LOG.info("{} is refused: EP {} judges it {} (compiled for {}) and {}=1", what, name, verdict,
                                Names.quote(info), SessionOptions.FAIL_ON_SUBOPTIMAL_COMPILED_MODEL);
                        throw new OrtexException(ErrorCode.FAIL, msg + " (" + SessionOptions
                                .FAIL_ON_SUBOPTIMAL_COMPILED_MODEL + "=1)");
                    }
                    LOG.warn("{}", msg);
                    break;
                default:
                    break;
            }
        }
    }

    /**
     * Asks one factory about a compatibility string.
     *
     * @param factory the factory
     * @param devices the devices
     * @param info the string
     * @return the verdict; {@code NOT_APPLICABLE} when the factory answers {@code null}
     * @throws OrtexException when the validator throws, naming the EP
     */
    public static CompiledModelCompatibility judge(EpFactory factory, List<HardwareDevice> devices, String info) {
        try {
            CompiledModelCompatibility v = factory.validateCompiledModelCompatibility(devices, info);
            return v == null ? CompiledModelCompatibility.NOT_APPLICABLE : v;
        } catch (RuntimeException e) {
            throw new OrtexException(ErrorCode.FAIL, "Failed to validate compiled model compatibility for EP "
                    + factory.name() + ": " + e.getMessage(), e);
        }
    }
}
