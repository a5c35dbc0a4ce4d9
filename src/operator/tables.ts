/** One node's readings at one moment (src/operator/sampler.ts); `sample` is a NodeSample as JSON. */
export interface OperatorSampleTable {
  node: string;
  ts: string;
  sample: string;
}

export interface OperatorTables {
  operator_samples: OperatorSampleTable;
}
