// Run by the samples module after `mvn verify` of this sample, which ran JpmsSample on the module path.
def lines = new File(logs, 'jpms/build.log').readLines()
assert lines.any { it.startsWith('EP device CPUExecutionProvider') } : 'the CPU EP module was not found as a service'
def line = lines.find { it.startsWith('module io.ortex.samples.jpms ran ') }
assert line != null : 'JpmsSample did not run as the named module io.ortex.samples.jpms'
assert line.contains('ran [CPUExecutionProvider]')
// ONNX Runtime 1.29 gives these for the same model and tokens
def expected = [0.17644446f, 0.0393658f, 0.07790196f]
def values = (line =~ /first values \[(.*)\]/)[0][1].split(', ').collect { it as float }
values.eachWithIndex { v, i -> assert Math.abs(v - expected[i]) < 1e-4 : "value ${i}: ${v}, ONNX Runtime ${expected[i]}" }
true // the invoker takes any other value as a failure
