/**
 * Seeded integer hashing and value noise, in integer and plain float arithmetic only
 * (no Math.sin and the like), so every platform generates the same world.
 */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A well-mixed 32-bit hash of up to three integers and a seed (murmur3 finaliser). */
export function hash3(seed: number, a: number, b: number, c = 0): number {
  let h = seed ^ Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ Math.imul(c, 0xc2b2ae3d);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** hash3 as a number in [0, 1). */
export function unit3(seed: number, a: number, b: number, c = 0): number {
  return hash3(seed, a, b, c) / 4294967296;
}

function smooth(t: number): number {
  return t * t * (3 - 2 * t);
}

/** One octave: lattice values every `cell` tiles, computed once, interpolated per tile. */
class Octave {
  private readonly lattice: Float64Array;
  private readonly stride: number;

  constructor(
    seed: number,
    readonly cell: number,
    extent: number,
  ) {
    this.stride = Math.ceil(extent / cell) + 2;
    this.lattice = new Float64Array(this.stride * this.stride);
    for (let gy = 0; gy < this.stride; gy++) {
      for (let gx = 0; gx < this.stride; gx++) this.lattice[gy * this.stride + gx] = unit3(seed, gx, gy);
    }
  }

  at(x: number, y: number): number {
    const gx = Math.floor(x / this.cell);
    const gy = Math.floor(y / this.cell);
    const tx = smooth((x - gx * this.cell) / this.cell);
    const ty = smooth((y - gy * this.cell) / this.cell);
    const row = gy * this.stride + gx;
    const a = this.lattice[row]!;
    const b = this.lattice[row + 1]!;
    const c = this.lattice[row + this.stride]!;
    const d = this.lattice[row + this.stride + 1]!;
    const top = a + (b - a) * tx;
    return top + (c + (d - c) * tx - top) * ty;
  }

  /**
   * Adds weight * at(x, y) to out[x] for x = 0 .. out.length - 1, bit for bit as at() would
   * give it, a cell at a time: the corners and the row's weight read once per cell, the
   * weight along x from a table. A world start evaluates 4M tiles in a dozen octaves, so
   * this is most of what starting a node costs.
   */
  addRow(y: number, weight: number, out: Float64Array): void {
    const cell = this.cell;
    if (!Number.isInteger(cell)) {
      for (let x = 0; x < out.length; x++) out[x] = out[x]! + this.at(x, y) * weight;
      return;
    }
    const weights = this.weightsAcross();
    const gy = Math.floor(y / cell);
    const ty = smooth((y - gy * cell) / cell);
    for (let gx = 0, x = 0; x < out.length; gx++) {
      const at = gy * this.stride + gx;
      const a = this.lattice[at]!;
      const b = this.lattice[at + 1]!;
      const c = this.lattice[at + this.stride]!;
      const d = this.lattice[at + this.stride + 1]!;
      const end = Math.min(x + cell, out.length);
      for (let offset = 0; x < end; offset++, x++) {
        const tx = weights[offset]!;
        const top = a + (b - a) * tx;
        out[x] = out[x]! + (top + (c + (d - c) * tx - top) * ty) * weight;
      }
    }
  }

  private weights_across: Float64Array | undefined;

  /** smooth(offset / cell) for each offset in a cell: exactly what at() computes for x - gx * cell. */
  private weightsAcross(): Float64Array {
    const cell = this.cell;
    if (!this.weights_across) {
      this.weights_across = new Float64Array(cell);
      for (let offset = 0; offset < cell; offset++) this.weights_across[offset] = smooth(offset / cell);
    }
    return this.weights_across;
  }
}

/**
 * Fractal value noise over a square of `extent` tiles, in [0, 1): octaves of smoothly
 * interpolated lattice values, each half the cell size and half the weight of the last.
 * Coherent regions, not noise per tile.
 */
export class FractalField {
  private readonly octaves: Octave[] = [];
  private readonly weights: number[] = [];
  private readonly total_weight: number;

  constructor(seed: number, base_cell: number, octave_count: number, extent: number) {
    let weight = 1;
    let total = 0;
    for (
      let octave = 0, cell = base_cell;
      octave < octave_count;
      octave++, cell = Math.max(1, cell / 2), weight *= 0.5
    ) {
      this.octaves.push(new Octave((seed + octave * 1013) >>> 0, cell, extent));
      this.weights.push(weight);
      total += weight;
    }
    this.total_weight = total;
  }

  at(x: number, y: number): number {
    let sum = 0;
    for (let i = 0; i < this.octaves.length; i++) sum += this.octaves[i]!.at(x, y) * this.weights[i]!;
    return sum / this.total_weight;
  }

  /** at(x, y) for x = 0 .. out.length - 1, bit for bit: the octaves' weighted values summed in at()'s order, then divided. */
  row(y: number, out: Float64Array): void {
    out.fill(0);
    for (let i = 0; i < this.octaves.length; i++) this.octaves[i]!.addRow(y, this.weights[i]!, out);
    for (let x = 0; x < out.length; x++) out[x] = out[x]! / this.total_weight;
  }
}
