package io.ortex.api.spi;

import io.ortex.api.ElementType;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * How {@link GraphView#exportModel} writes a graph as a standalone ONNX model. Immutable.
 * Options of the export ONNX Runtime's {@code ort_graph_to_proto.h} helper does; Ortex's own.
 *
 * @param referenceExternalData true to keep initializers that the source model stores in external-data files as
 *     references to those files (the exported model then names them relative to
 *     {@link ModelExport#externalDataFolder()}); false to copy their bytes into the model
 * @param inputElementTypes element types for graph inputs whose type the source model does not declare (values
 *     between two partitions often have none), by value name; such an input is written with that element type and
 *     no shape. An input with neither is written without a type
 */
public record ModelExportOptions(boolean referenceExternalData, Map<String, ElementType> inputElementTypes) {
    /** The defaults: external data stays in its files, no input types added. */
    public static final ModelExportOptions DEFAULT = new ModelExportOptions(true, Map.of());

    /**
     * Creates options, copying the map.
     *
     * @param referenceExternalData whether external data stays in its files
     * @param inputElementTypes element types of undeclared inputs
     */
    public ModelExportOptions {
        inputElementTypes = Map.copyOf(new TreeMap<>(Objects.requireNonNullElse(inputElementTypes, Map.of())));
    }

    /**
     * Gives these options with element types for undeclared inputs.
     * Options of the export ONNX Runtime's {@code ort_graph_to_proto.h} helper does; Ortex's own.
     *
     * @param types the element types, by value name
     * @return the new options
     */
    public ModelExportOptions withInputElementTypes(Map<String, ElementType> types) {
        return new ModelExportOptions(referenceExternalData, types);
    }
}
