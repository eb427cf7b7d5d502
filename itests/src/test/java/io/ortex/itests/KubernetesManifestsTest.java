package io.ortex.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/**
 * The KServe manifests of {@code deploy/kubernetes/} against KServe's own CRD schemas (test resources {@code kserve/},
 * taken unchanged from KServe): validated as the API server's strict field validation does, so that a misspelt field
 * or a value of the wrong type fails; then what ties them to Ortex: the ONNX format, protocol v2, the port and the
 * paths of the probes and of the Prometheus annotations, and the runtime the InferenceService names.
 */
class KubernetesManifestsTest {
    /** The folder of the manifests, from the itests module. */
    static final Path KUBERNETES = Path.of("../deploy/kubernetes");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** The fields of ObjectMeta the manifests may set; the CRDs leave metadata to the API server. */
    private static final Set<String> METADATA_FIELDS = Set.of("name", "namespace", "labels", "annotations");

    private static final JsonSchema SERVING_RUNTIME = crdSchema("serving.kserve.io_servingruntimes.yaml.gz");
    private static final JsonSchema INFERENCE_SERVICE = crdSchema("serving.kserve.io_inferenceservices.yaml.gz");

    @Test
    void theServingRuntimeIsValidForKServe() throws IOException {
        JsonNode runtime = manifest("servingruntime.yaml");
        assertValid(SERVING_RUNTIME, runtime, "servingruntime.yaml");
        assertEquals("serving.kserve.io/v1alpha1", runtime.path("apiVersion").asText());
        assertEquals("ServingRuntime", runtime.path("kind").asText());
    }

    @Test
    void theInferenceServiceIsValidForKServe() throws IOException {
        JsonNode isvc = manifest("inferenceservice.yaml");
        assertValid(INFERENCE_SERVICE, isvc, "inferenceservice.yaml");
        assertEquals("serving.kserve.io/v1beta1", isvc.path("apiVersion").asText());
        assertEquals("InferenceService", isvc.path("kind").asText());
    }

    /** The validation is strict: a misspelt field, a value of the wrong type and a wrong enum value are refused. */
    @Test
    void theValidationRefusesTyposAndWrongTypes() throws IOException {
        ObjectNode typo = (ObjectNode) manifest("servingruntime.yaml");
        ObjectNode container = (ObjectNode) typo.at("/spec/containers/0");
        container.set("readinesProbe", container.remove("readinessProbe"));
        assertInvalid(SERVING_RUNTIME, typo, "readinesProbe");

        ObjectNode wrongType = (ObjectNode) manifest("servingruntime.yaml");
        ((ObjectNode) wrongType.at("/spec/containers/0/ports/0")).put("containerPort", "eighty");
        assertInvalid(SERVING_RUNTIME, wrongType, "containerPort");

        ObjectNode specTypo = (ObjectNode) manifest("servingruntime.yaml");
        ObjectNode spec = (ObjectNode) specTypo.get("spec");
        spec.set("supportedModelFormat", spec.remove("supportedModelFormats"));
        assertInvalid(SERVING_RUNTIME, specTypo, "supportedModelFormat");

        ObjectNode wrongEnum = (ObjectNode) manifest("inferenceservice.yaml");
        ((ObjectNode) wrongEnum.at("/spec/predictor")).put("scaleMetric", "requests");
        assertInvalid(INFERENCE_SERVICE, wrongEnum, "scaleMetric");

        ObjectNode metadataTypo = (ObjectNode) manifest("inferenceservice.yaml");
        ((ObjectNode) metadataTypo.get("metadata")).put("anotations", "x");
        assertTrue(metadataErrors(metadataTypo).stream().anyMatch(e -> e.contains("anotations")));
    }

    /** The runtime serves ONNX over v2 on the port the container's HTTP configuration opens, probed and scraped. */
    @Test
    void theRuntimeFitsTheServer() throws IOException {
        JsonNode spec = manifest("servingruntime.yaml").path("spec");
        assertTrue(texts(spec.path("supportedModelFormats"), "name").contains("onnx"), spec.toString());
        assertTrue(texts(spec.path("protocolVersions"), null).contains("v2"), spec.toString());

        Properties http = properties(KUBERNETES.resolve("conf/custom.properties"));
        assertEquals("0.0.0.0", http.getProperty("org.apache.felix.http.host"));
        int port = Integer.parseInt(http.getProperty("org.osgi.service.http.port"));

        JsonNode container = spec.path("containers").path(0);
        assertEquals("kserve-container", container.path("name").asText());
        assertEquals(List.of("serve"), texts(container.path("args"), null));
        assertEquals(port, container.at("/ports/0/containerPort").asInt());
        assertEquals(port, container.at("/readinessProbe/httpGet/port").asInt());
        assertEquals(port, container.at("/livenessProbe/httpGet/port").asInt());
        assertEquals(KServeContainerIT.READY, container.at("/readinessProbe/httpGet/path").asText());
        assertEquals(KServeContainerIT.LIVE, container.at("/livenessProbe/httpGet/path").asText());

        JsonNode annotations = spec.path("annotations");
        assertEquals("true", annotations.path("prometheus.io/scrape").asText());
        assertEquals(Integer.toString(port), annotations.path("prometheus.io/port").asText());
        assertEquals(KServeContainerIT.METRICS, annotations.path("prometheus.io/path").asText());

        Properties serve = properties(KUBERNETES.resolve("conf/io.ortex.serve.cfg"));
        assertEquals("/mnt/models", serve.getProperty("models.dir"));
        // the container's server configuration sets every key of the distribution's
        Properties dist = properties(Path.of("../config/io.ortex.serve.cfg"));
        assertEquals(dist.stringPropertyNames(), serve.stringPropertyNames());
    }

    @Test
    void theInferenceServiceUsesTheRuntime() throws IOException {
        JsonNode runtime = manifest("servingruntime.yaml");
        JsonNode predictor = manifest("inferenceservice.yaml").at("/spec/predictor");
        assertEquals(runtime.at("/metadata/name").asText(), predictor.at("/model/runtime").asText());
        assertEquals("onnx", predictor.at("/model/modelFormat/name").asText());
        assertEquals("v2", predictor.at("/model/protocolVersion").asText());
        assertTrue(predictor.at("/model/storageUri").asText().contains("://"), predictor.toString());
        assertTrue(predictor.path("minReplicas").asInt() >= 1, predictor.toString());
        assertTrue(predictor.path("maxReplicas").asInt() > predictor.path("minReplicas").asInt(), predictor.toString());
    }

    static JsonNode manifest(String name) throws IOException {
        return YAML.readTree(KUBERNETES.resolve(name).toFile());
    }

    static Properties properties(Path file) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        }
        return p;
    }

    private static List<String> texts(JsonNode array, String field) {
        List<String> out = new ArrayList<>();
        for (JsonNode n : array) {
            out.add(field == null ? n.asText() : n.path(field).asText());
        }
        return out;
    }

    private static void assertValid(JsonSchema schema, JsonNode doc, String name) {
        List<String> errors = new ArrayList<>(schema.validate(doc).stream().map(ValidationMessage::getMessage)
                .sorted().toList());
        errors.addAll(metadataErrors(doc));
        assertTrue(errors.isEmpty(), name + " does not fit KServe's schema:\n" + String.join("\n", errors));
    }

    private static void assertInvalid(JsonSchema schema, JsonNode doc, String field) {
        Set<String> errors = schema.validate(doc).stream().map(ValidationMessage::getMessage)
                .collect(Collectors.toSet());
        assertTrue(errors.stream().anyMatch(e -> e.contains(field)), "no error about " + field + ": " + errors);
    }

    /** The CRDs declare metadata as a bare object: check the fields the manifests use, and their types. */
    private static List<String> metadataErrors(JsonNode doc) {
        List<String> errors = new ArrayList<>();
        JsonNode metadata = doc.path("metadata");
        for (Map.Entry<String, JsonNode> field : metadata.properties()) {
            if (!METADATA_FIELDS.contains(field.getKey())) {
                errors.add("metadata." + field.getKey() + " is not a field the manifests may set " + METADATA_FIELDS);
            } else if (field.getValue().isObject()) {
                for (Map.Entry<String, JsonNode> e : field.getValue().properties()) {
                    if (!e.getValue().isTextual()) {
                        errors.add("metadata." + field.getKey() + "." + e.getKey() + " is not a string");
                    }
                }
            } else if (!field.getValue().isTextual()) {
                errors.add("metadata." + field.getKey() + " is not a string");
            }
        }
        if (!metadata.path("name").isTextual()) {
            errors.add("metadata.name is missing");
        }
        return errors;
    }

    /**
     * Reads a CRD's OpenAPI schema (its one served version) as a JSON schema with the API server's strict field
     * validation: an object that declares its properties allows no others, unless it preserves unknown fields.
     */
    private static JsonSchema crdSchema(String resource) {
        try (InputStream in = new GZIPInputStream(KubernetesManifestsTest.class.getResourceAsStream(
                "/kserve/" + resource))) {
            JsonNode crd = YAML.readTree(in);
            List<JsonNode> served = new ArrayList<>();
            crd.at("/spec/versions").forEach(v -> {
                if (v.path("served").asBoolean()) {
                    served.add(v);
                }
            });
            assertEquals(1, served.size(), resource + " serves one version");
            JsonNode schema = served.get(0).at("/schema/openAPIV3Schema").deepCopy();
            strict(schema);
            return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(schema);
        } catch (IOException e) {
            throw new UncheckedIOException(resource, e);
        }
    }

    private static void strict(JsonNode node) {
        if (node instanceof ArrayNode array) {
            array.forEach(KubernetesManifestsTest::strict);
            return;
        }
        if (!(node instanceof ObjectNode schema)) {
            return;
        }
        boolean preserve = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
        if (schema.has("properties") && !schema.has("additionalProperties") && !preserve) {
            schema.set("additionalProperties", BooleanNode.FALSE);
        }
        // Kubernetes' own extensions and formats mean nothing to a JSON schema validator
        schema.properties().removeIf(e -> e.getKey().startsWith("x-kubernetes-"));
        if (schema.path("format") instanceof TextNode) {
            schema.remove("format");
        }
        for (String key : List.of("items", "additionalProperties", "anyOf", "allOf", "oneOf", "not")) {
            strict(schema.path(key));
        }
        schema.path("properties").forEach(KubernetesManifestsTest::strict);
    }
}
