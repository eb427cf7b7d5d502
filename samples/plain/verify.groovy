// Run by the samples module after `mvn verify` of this sample, which ran PlainSample on all-minilm-l6-v2.
def line = new File(logs, 'plain/build.log').readLines().find { it.startsWith('EPs ') }
assert line != null : 'PlainSample printed no result'
assert line.startsWith('EPs [CPUExecutionProvider], last_hidden_state 1x4x384, first values [')
// ONNX Runtime 1.29 gives these for the same model and tokens
def expected = [0.17644446f, 0.0393658f, 0.07790196f]
def values = (line =~ /first values \[(.*)\]/)[0][1].split(', ').collect { it as float }
values.eachWithIndex { v, i -> assert Math.abs(v - expected[i]) < 1e-4 : "value ${i}: ${v}, ONNX Runtime ${expected[i]}" }

// The README's "Use Ortex from Java" example is this sample's code, from its imports on.
def source = new File(sources, 'plain/src/main/java/io/ortex/samples/plain/PlainSample.java').text
def example = source.substring(source.indexOf('import '))
assert new File(readme).text.contains(example) : 'README.md does not show samples/plain/.../PlainSample.java as it is'
true // the invoker takes any other value as a failure
