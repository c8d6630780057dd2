/**
 * Moonshine's decoder as shipped computes each token's logits by dequantizing its int8 token
 * embedding (32,768 x 288) to float and multiplying by it: on one CPU thread, the largest share
 * of a decoding step (the embedding is read as 37 MB of floats per token, after constant
 * folding; dequantized afresh per token without it). `int8Logits` rewrites that product, in both
 * branches of the merged decoder, into onnxruntime's DynamicQuantizeMatMul over the int8
 * embedding itself (a quarter of the bytes, integer arithmetic), in memory at load time, so the
 * shipped file is read as it is. The words decoded stay the same on the speech bench (greedy
 * argmax over the vocabulary; docs/local-analyzer.md#speech).
 *
 * ONNX is protobuf; the few fields touched are edited in place and every enclosing message
 * re-encoded, the rest (initializers, other nodes) carried over as bytes.
 */

/** ONNX's protobuf field numbers (onnx.proto3) of the messages on the path to the product. */
const MODEL = { graph: 7, opsetImport: 8 } as const;
const GRAPH = { node: 1 } as const;
const NODE = { input: 1, output: 2, name: 3, opType: 4, attribute: 5, domain: 7 } as const;
const ATTRIBUTE = { graph: 6 } as const;
const OPSET = { domain: 1, version: 2 } as const;

const LENGTH_DELIMITED = 2;
const MICROSOFT_DOMAIN = 'com.microsoft';
/** The product's node and the dequantization feeding it, as the shipped decoder names them. */
const PRODUCT = '/proj_out/MatMul';
const DEQUANTIZE = 'DequantizeLinear';

interface Field {
  number: number;
  wireType: number;
  /** The value's bytes: the payload of a length-delimited field, else the raw encoded value. */
  value: Uint8Array;
}

function readVarint(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, at];
    scale *= 128;
  }
}

function varint(value: number): number[] {
  const out: number[] = [];
  for (; value >= 0x80; value = Math.floor(value / 128)) out.push((value % 128) | 0x80);
  out.push(value);
  return out;
}

function decode(bytes: Uint8Array): Field[] {
  const fields: Field[] = [];
  for (let at = 0; at < bytes.length; ) {
    const [key, afterKey] = readVarint(bytes, at);
    const number = Math.floor(key / 8);
    const wireType = key % 8;
    let end: number;
    let start = afterKey;
    if (wireType === 0) end = readVarint(bytes, afterKey)[1];
    else if (wireType === 1) end = afterKey + 8;
    else if (wireType === 5) end = afterKey + 4;
    else if (wireType === LENGTH_DELIMITED) {
      const [length, afterLength] = readVarint(bytes, afterKey);
      start = afterLength;
      end = afterLength + length;
    } else throw new Error(`unexpected protobuf wire type ${wireType}`);
    fields.push({ number, wireType, value: bytes.subarray(start, end) });
    at = end;
  }
  return fields;
}

function encode(fields: readonly Field[]): Uint8Array {
  const parts = fields.flatMap(({ number, wireType, value }) => [
    Uint8Array.from([...varint(number * 8 + wireType), ...(wireType === LENGTH_DELIMITED ? varint(value.length) : [])]),
    value,
  ]);
  return Buffer.concat(parts);
}

const text = (value: Uint8Array) => Buffer.from(value).toString('utf8');
const bytesOf = (value: string) => new Uint8Array(Buffer.from(value, 'utf8'));
const stringField = (number: number, value: string): Field => ({ number, wireType: LENGTH_DELIMITED, value: bytesOf(value) });
const strings = (fields: readonly Field[], number: number) => fields.filter((f) => f.number === number).map((f) => text(f.value));

/** A graph with the product rewritten (when it holds it), and its subgraphs likewise; how many were rewritten. */
function rewriteGraph(graph: Uint8Array): { graph: Uint8Array; rewritten: number } {
  const fields = decode(graph).map((field) => ({ field, node: field.number === GRAPH.node ? decode(field.value) : null }));
  const nodes = fields.flatMap(({ node }) => (node ? [node] : []));
  const name = (node: Field[]) => strings(node, NODE.name)[0];
  const product = nodes.find((node) => name(node) === PRODUCT);
  const weights = product && strings(product, NODE.input)[1];
  const dequantize = nodes.find((node) => strings(node, NODE.opType)[0] === DEQUANTIZE && strings(node, NODE.output)[0] === weights);
  // The dequantized embedding must feed the product alone, or removing its node would starve another.
  const rewrite = product && dequantize && nodes.filter((node) => strings(node, NODE.input).includes(weights!)).length === 1;
  let rewritten = 0;
  const out: Field[] = [];
  for (const { field, node } of fields) {
    if (!node) {
      out.push(field);
      continue;
    }
    if (rewrite && node === dequantize) continue;
    let edited = node;
    if (rewrite && node === product) {
      // DynamicQuantizeMatMul(A, B, b_scale, b_zero_point): B and its quantization are the dequantization's own inputs.
      edited = [
        ...[strings(node, NODE.input)[0]!, ...strings(dequantize, NODE.input)].map((input) => stringField(NODE.input, input)),
        ...node.filter((f) => f.number === NODE.output || f.number === NODE.name),
        stringField(NODE.opType, 'DynamicQuantizeMatMul'),
        stringField(NODE.domain, MICROSOFT_DOMAIN),
      ];
      rewritten++;
    }
    // Only a node that changed, or holds a subgraph that did, is encoded anew.
    let changed = edited !== node;
    edited = edited.map((f) => {
      const attribute = f.number === NODE.attribute ? decode(f.value) : [];
      if (!attribute.some((a) => a.number === ATTRIBUTE.graph)) return f;
      const value = encode(
        attribute.map((a) => {
          if (a.number !== ATTRIBUTE.graph) return a;
          const sub = rewriteGraph(a.value);
          rewritten += sub.rewritten;
          changed ||= sub.rewritten > 0;
          return { ...a, value: sub.graph };
        }),
      );
      return { ...f, value };
    });
    out.push(changed ? { ...field, value: encode(edited) } : field);
  }
  return { graph: rewritten ? encode(out) : graph, rewritten };
}

/**
 * The decoder model with its logits computed from the int8 embedding (see above). A model
 * without that product (a future Moonshine file laid out otherwise) comes back unchanged.
 */
export function int8Logits(model: Uint8Array): Uint8Array {
  const fields = decode(model);
  let rewritten = 0;
  const out = fields.map((field) => {
    if (field.number !== MODEL.graph) return field;
    const result = rewriteGraph(field.value);
    rewritten = result.rewritten;
    return { ...field, value: result.graph };
  });
  if (!rewritten) return model;
  const importsMicrosoft = fields.some((f) => f.number === MODEL.opsetImport && strings(decode(f.value), OPSET.domain)[0] === MICROSOFT_DOMAIN);
  if (!importsMicrosoft) {
    out.push({
      number: MODEL.opsetImport,
      wireType: LENGTH_DELIMITED,
      value: encode([stringField(OPSET.domain, MICROSOFT_DOMAIN), { number: OPSET.version, wireType: 0, value: Uint8Array.from([1]) }]),
    });
  }
  return encode(out);
}
