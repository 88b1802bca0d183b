/**
 * Metric attribute sets of bounded-cardinality labels, made once per distinct combination of
 * values and reused, so that a record allocates nothing of ours. A set is found by walking one
 * map per label value (strings the SDK already holds, numbers): no key string is concatenated
 * and hashed per record, which cost more than the record itself.
 * @module
 */
import type { Attributes } from '@opentelemetry/api';

// Labels are bounded, so this only stops an unexpected spread from growing without end.
const MAX_SETS = 512;

type Value = string | number | boolean | undefined;
type Node = Map<Value, Node | Attributes>;

export class AttributeSets {
  readonly #root: Node = new Map();
  #size = 0;

  /**
   * The set for `values` (the labels' values, in a fixed order per kind of set, the kind's name
   * first), made by `make` the first time. A set is a frozen object: the SDK only reads it.
   */
  get(values: readonly Value[], make: () => Attributes): Attributes {
    let node = this.#root;
    const last = values.length - 1;
    for (let index = 0; index < last; index += 1) {
      let next = node.get(values[index]) as Node | undefined;
      if (next === undefined) {
        if (this.#size >= MAX_SETS) return Object.freeze(make());
        next = new Map();
        node.set(values[index], next);
      }
      node = next;
    }
    let set = node.get(values[last]) as Attributes | undefined;
    if (set === undefined) {
      set = Object.freeze(make());
      if (this.#size < MAX_SETS) {
        node.set(values[last], set);
        this.#size += 1;
      }
    }
    return set;
  }
}
