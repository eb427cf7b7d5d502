/**
 * The object-detection kernels: NonMaxSuppression, RoiAlign and MaxRoiPool. Registered by
 * {@link io.ortex.ep.cpu.ops.objectdetection.ObjectDetectionOps}.
 */
package io.ortex.ep.cpu.ops.objectdetection;
