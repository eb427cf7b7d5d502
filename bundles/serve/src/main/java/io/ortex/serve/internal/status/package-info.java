/**
 * The status page: a snapshot of the devices, EP devices, models and their figures ({@code StatusCollector}), the
 * models' graphs laid out and coloured by EP ({@code GraphOutline}, {@code GraphLayout}, {@code GraphSvg}), written
 * as HTML ({@code StatusPage}) and JSON ({@code StatusJson}); free of OSGi and the servlet API.
 */
package io.ortex.serve.internal.status;
