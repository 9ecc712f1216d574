// What the media provider families (TTS, STT, image generation) share: a registry of providers by
// name whose built-in entries a plugin cannot replace, and reading a provider's own config section.

export class Providers<P extends { name: string }> {
  private readonly map = new Map<string, P>();
  private readonly builtin = new Set<string>();
  private readonly kind: string;

  constructor(kind: string, builtins: P[]) {
    this.kind = kind;
    for (const p of builtins) {
      this.map.set(p.name, p);
      this.builtin.add(p.name);
    }
  }

  /** Adds a provider (plugins). Built-in names cannot be replaced. */
  register(p: P): void {
    if (this.builtin.has(p.name)) throw new Error(`The ${this.kind} provider name "${p.name}" is built in.`);
    this.map.set(p.name, p);
  }

  get(name: string): P | undefined {
    return this.map.get(name);
  }

  names(): string[] {
    return [...this.map.keys()];
  }
}

/** A provider's own section of a config block (`tts.openai`, `stt.groq`, `image_gen.openai`…), or {}. */
export function configSection(config: Record<string, unknown>, name: string): Record<string, unknown> {
  const v = config[name];
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
