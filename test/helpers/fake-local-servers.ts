// Fakes of the local inference servers' own APIs on loopback, in their documented shapes, in front
// of the fake LLM (test/helpers/fake-llm.ts), which answers the chat itself: every path a fake does
// not serve (`/v1/chat/completions`, …) is passed through to it, so its queue, handler and recorded
// requests work as usual.
//   ollama   — GET /api/version, POST /api/show, GET /api/ps, POST /api/generate (loads a model),
//              GET /v1/models (owned_by "library")
//   llamacpp — GET /props, GET /slots, GET /health, GET /v1/models (owned_by "llamacpp", meta.n_ctx_train)
//   vllm     — GET /version, GET /v1/models (owned_by "vllm", max_model_len)
//   lmstudio — GET /api/v0/models (state, max_context_length, loaded_context_length, capabilities),
//              GET /v1/models (owned_by "organization_owner")
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { startFakeLlm, type FakeLlm } from './fake-llm.ts';

export type FakeServerKind = 'ollama' | 'llamacpp' | 'vllm' | 'lmstudio';

export interface FakeServedModel {
  name: string;
  /** The model's trained context. */
  maxWindow: number;
  /** The context it is served (loaded) with. */
  window: number;
  tools?: boolean;
  thinking?: boolean;
  vision?: boolean;
  /** Ollama / LM Studio: loaded already (else a request or /api/generate loads it). */
  loaded?: boolean;
}

export interface FakeLocalServer {
  kind: FakeServerKind;
  /** http://127.0.0.1:<port> */
  url: string;
  /** url + '/v1': the base URL Hermes is pointed at. */
  baseUrl: string;
  llm: FakeLlm;
  models: FakeServedModel[];
  /** Every request to the server's own API (method and path), in order. */
  hits: string[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

const send = (res: http.ServerResponse, status: number, body: unknown) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

const readBody = (req: http.IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

const ollamaName = (m: string) => (m.includes(':') ? m : `${m}:latest`);

export async function startFakeLocalServer(kind: FakeServerKind, models: FakeServedModel[], opts: { llm?: FakeLlm } = {}): Promise<FakeLocalServer> {
  const llm = opts.llm ?? (await startFakeLlm());
  const ownLlm = !opts.llm;
  const hits: string[] = [];
  const sockets = new Set<Socket>();
  const find = (name: unknown) => models.find((m) => m.name === name || (kind === 'ollama' && ollamaName(m.name) === ollamaName(String(name))));

  function ollamaRoute(method: string, path: string, body: Json): unknown {
    if (method === 'GET' && path === '/') return 'Ollama is running';
    if (method === 'GET' && path === '/api/version') return { version: '0.12.0' };
    if (method === 'POST' && path === '/api/show') {
      const m = find(body.model ?? body.name);
      if (!m) return [404, { error: `model '${String(body.model)}' not found` }];
      const caps = ['completion', ...(m.tools ? ['tools'] : []), ...(m.thinking ? ['thinking'] : []), ...(m.vision ? ['vision'] : [])];
      return {
        modelfile: `FROM ${m.name}`,
        parameters: 'stop "<|im_end|>"\ntemperature 0.7',
        template: m.tools ? '{{- if .Tools }}<tools>{{ .Tools }}</tools>{{ end }}{{ .Prompt }}' : '{{ .Prompt }}',
        details: { parent_model: '', format: 'gguf', family: 'qwen3', families: ['qwen3'], parameter_size: '4.0B', quantization_level: 'Q4_K_M' },
        model_info: { 'general.architecture': 'qwen3', 'general.parameter_count': 4_000_000_000, 'qwen3.context_length': m.maxWindow, 'qwen3.embedding_length': 2560 },
        capabilities: caps,
        modified_at: '2026-01-01T00:00:00Z',
      };
    }
    if (method === 'GET' && path === '/api/ps') {
      return {
        models: models
          .filter((m) => m.loaded)
          .map((m) => ({
            name: ollamaName(m.name),
            model: ollamaName(m.name),
            size: 3_000_000_000,
            digest: 'a'.repeat(64),
            details: { format: 'gguf', family: 'qwen3', parameter_size: '4.0B', quantization_level: 'Q4_K_M' },
            expires_at: '2026-12-31T00:00:00Z',
            size_vram: 3_000_000_000,
            context_length: m.window,
          })),
      };
    }
    if (method === 'POST' && path === '/api/generate' && !body.prompt) {
      const m = find(body.model);
      if (!m) return [404, { error: `model '${String(body.model)}' not found` }];
      m.loaded = true;
      return { model: m.name, created_at: new Date().toISOString(), response: '', done: true, done_reason: 'load' };
    }
    if (method === 'GET' && path === '/v1/models') return { object: 'list', data: models.map((m) => ({ id: m.name, object: 'model', created: 1735689600, owned_by: 'library' })) };
    return undefined;
  }

  function llamacppRoute(method: string, path: string): unknown {
    const m = models[0];
    if (method === 'GET' && path === '/health') return { status: 'ok' };
    if (method === 'GET' && path === '/props') {
      return {
        default_generation_settings: { id: 0, id_task: -1, n_ctx: m.window, speculative: false, is_processing: false, params: { n_predict: -1, temperature: 0.8 } },
        total_slots: 1,
        model_path: `/models/${m.name}.gguf`,
        chat_template: `{%- if tools %}{{ tools | tojson }}{%- endif %}${m.thinking ? '<think>' : ''}{{ messages }}`,
        chat_template_caps: { supports_tools: !!m.tools, supports_tool_calls: !!m.tools, supports_system_role: true, supports_parallel_tool_calls: !!m.tools },
        modalities: { vision: !!m.vision, audio: false },
        build_info: 'b6000-abcdef0',
      };
    }
    if (method === 'GET' && path === '/slots') return [{ id: 0, id_task: -1, n_ctx: m.window, speculative: false, is_processing: false }];
    if (method === 'GET' && path === '/v1/models') {
      return { object: 'list', data: [{ id: m.name, object: 'model', created: 1735689600, owned_by: 'llamacpp', meta: { vocab_type: 2, n_vocab: 151936, n_ctx_train: m.maxWindow, n_embd: 2560, n_params: 4_000_000_000, size: 2_500_000_000 } }] };
    }
    return undefined;
  }

  function vllmRoute(method: string, path: string): unknown {
    if (method === 'GET' && path === '/version') return { version: '0.10.1' };
    if (method === 'GET' && path === '/v1/models') {
      return {
        object: 'list',
        data: models.map((m) => ({ id: m.name, object: 'model', created: 1735689600, owned_by: 'vllm', root: `/models/${m.name}`, parent: null, max_model_len: m.window, permission: [] })),
      };
    }
    return undefined;
  }

  function lmstudioRoute(method: string, path: string): unknown {
    if (method === 'GET' && path === '/api/v0/models') {
      return {
        object: 'list',
        data: models.map((m) => ({
          id: m.name,
          object: 'model',
          type: m.vision ? 'vlm' : 'llm',
          publisher: 'qwen',
          arch: 'qwen3',
          compatibility_type: 'gguf',
          quantization: 'Q4_K_M',
          state: m.loaded ? 'loaded' : 'not-loaded',
          max_context_length: m.maxWindow,
          ...(m.loaded ? { loaded_context_length: m.window } : {}),
          ...(m.tools ? { capabilities: ['tool_use'] } : {}),
        })),
      };
    }
    if (method === 'GET' && path === '/v1/models') return { object: 'list', data: models.map((m) => ({ id: m.name, object: 'model', owned_by: 'organization_owner' })) };
    return undefined;
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      const method = req.method ?? 'GET';
      const path = (req.url ?? '/').split('?')[0];
      const raw = await readBody(req);
      let body: Json = {};
      try {
        body = raw.length ? (JSON.parse(raw.toString('utf8')) as Json) : {};
      } catch {
        /* not JSON: passed through */
      }
      const own = kind === 'ollama' ? ollamaRoute(method, path, body) : kind === 'llamacpp' ? llamacppRoute(method, path) : kind === 'vllm' ? vllmRoute(method, path) : lmstudioRoute(method, path);
      if (own !== undefined) {
        hits.push(`${method} ${path}`);
        if (Array.isArray(own) && typeof own[0] === 'number') return send(res, own[0], own[1]);
        return send(res, 200, own);
      }
      // A chat request loads the model (Ollama, LM Studio's just-in-time loading).
      if (path.endsWith('/chat/completions')) {
        const m = find(body.model);
        if (m) m.loaded = true;
      }
      const up = http.request(`${llm.url}${req.url ?? '/'}`, { method, headers: { ...req.headers, host: new URL(llm.url).host, 'content-length': String(raw.length) } }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => (res.headersSent ? res.destroy() : send(res, 502, { error: 'fake upstream failed' })));
      up.end(raw);
    })().catch(() => res.destroy());
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    kind,
    url,
    baseUrl: `${url}/v1`,
    llm,
    models,
    hits,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      if (ownLlm) await llm.close();
    },
  };
}
