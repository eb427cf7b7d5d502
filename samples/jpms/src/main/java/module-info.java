/**
 * A module that reads only the Ortex API: the runtime that implements it and the execution providers are modules
 * on the module path that the JVM binds as services.
 */
module io.ortex.samples.jpms {
    requires io.ortex.api;
}
