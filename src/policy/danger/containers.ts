// Containers: docker/podman/nerdctl (and compose) stopping or removing containers, talking to
// another daemon, running privileged or with the host's namespaces, devices or folders mounted
// (`--privileged`, `--pid=host`, `-v /:/host`, the Docker socket); the command run inside
// (`run IMAGE CMD`, `exec C CMD`, `compose run/exec`, `kubectl exec/run/debug`) is classified
// there, with bind-mounted paths read as the host paths behind them.
import { canonPath, elsewhere, isDynamic, type Scope } from './context.ts';
import { addFinding, F, type Finding } from './findings.ts';
import { parseRunner, type Runner, runString } from './runners.ts';
import { BLOCK_DEVICE, checkWriteTarget, isSecretPath, protectedFolder } from './targets.ts';
import { command } from './walk.ts';

const add = (scope: Scope, f: Finding) => addFinding(scope.findings, f);

const GLOBAL_VALUE = new Set(['-H', '--host', '-c', '--context', '--config', '-l', '--log-level', '--tlscacert', '--tlscert', '--tlskey', '--url', '--connection', '--identity', '--root', '--runroot', '--storage-driver', '--cgroup-manager', '--events-backend', '--network-cmd-path', '--runtime', '--tmpdir', '--namespace', '-n', '--address', '-a', '--snapshotter', '--cni-path', '--data-root']);

/** docker/podman run, create and compose run: options that take a value. */
const RUN: Runner = {
  v: 'acehlmpuvw',
  lv: [
    '--attach', '--add-host', '--annotation', '--blkio-weight', '--blkio-weight-device', '--cap-add', '--cap-drop', '--cgroup-parent', '--cgroupns', '--cidfile',
    '--cpu-period', '--cpu-quota', '--cpu-rt-period', '--cpu-rt-runtime', '--cpu-shares', '--cpus', '--cpuset-cpus', '--cpuset-mems', '--detach-keys', '--device',
    '--device-cgroup-rule', '--device-read-bps', '--device-read-iops', '--device-write-bps', '--device-write-iops', '--dns', '--dns-option', '--dns-search',
    '--domainname', '--entrypoint', '--env', '--env-file', '--expose', '--gpus', '--group-add', '--health-cmd', '--health-interval', '--health-retries',
    '--health-start-period', '--health-start-interval', '--health-timeout', '--hostname', '--ip', '--ip6', '--ipc', '--isolation', '--kernel-memory', '--label',
    '--label-file', '--link', '--link-local-ip', '--log-driver', '--log-opt', '--mac-address', '--memory', '--memory-reservation', '--memory-swap',
    '--memory-swappiness', '--mount', '--name', '--network', '--net', '--network-alias', '--oom-score-adj', '--pid', '--pids-limit', '--platform', '--publish',
    '--pull', '--restart', '--runtime', '--security-opt', '--shm-size', '--stop-signal', '--stop-timeout', '--storage-opt', '--sysctl', '--tmpfs', '--ulimit',
    '--user', '--userns', '--uts', '--volume', '--volume-driver', '--volumes-from', '--workdir', '--arch', '--os', '--variant', '--pod', '--secret', '--uidmap',
    '--gidmap', '--subuidname', '--subgidname', '--requires', '--sdnotify', '--seccomp-policy', '--timeout', '--tz', '--umask', '--unsetenv', '--passwd-entry',
    '--preserve-fds', '--chrootdirs', '--init-path', '--image-volume', '--personality', '--cgroup-conf', '--cgroups', '--conmon-pidfile', '--env-from-file', '--index',
  ],
};
/** docker/podman exec and compose exec. */
const EXEC: Runner = { v: 'euw', lv: ['--env', '--env-file', '--user', '--workdir', '--detach-keys', '--index', '--preserve-fds'] };

const DANGEROUS_CAPS = /^(cap_)?(all|sys_admin|sys_module|sys_rawio|sys_ptrace|dac_read_search|sys_boot|bpf)$/i;

/**
 * A host folder or file mounted into a container that gives the container the host: `/`, a system
 * folder, the home, credentials, Hermes's home, a container socket. A file inside a system folder
 * mounted read-only (`/etc/localtime:ro`) is fine.
 */
function sensitiveMount(src: string, ro: boolean, scope: Scope): string | null {
  if (!src || isDynamic(src)) return null;
  if (/(^|\/)(docker|podman|containerd|crio)\.sock$/.test(src)) return `the ${src.replace(/^.*\//, '')} socket mounted (control of every container)`;
  if (isSecretPath(src, scope)) return `Hermes's secrets mounted (${src})`;
  const c = canonPath(src, scope);
  if (c !== null && /^\/var\/lib\/(docker|containerd|containers)(\/|$)/.test(c)) return `${c} mounted`;
  const p = protectedFolder(src, scope);
  if (!p) return null;
  if (ro && c !== null && /^\/(etc|usr|var|opt|srv|lib\w*|private)\/./.test(c)) return null;
  return `${p} mounted from the host`;
}

/** Bind mounts of `-v SRC:DST[:opts]` / `--mount type=bind,source=…,target=…`. */
function binds(opts: Map<string, string[]>): { target: string; source: string; ro: boolean }[] {
  const out: { target: string; source: string; ro: boolean }[] = [];
  for (const v of [...(opts.get('-v') ?? []), ...(opts.get('--volume') ?? [])]) {
    const parts = v.split(':');
    if (parts.length < 2) continue;
    const [source, target] = parts;
    const ro = (parts[2] ?? '').split(',').includes('ro');
    if (/^[/.~]/.test(source) || source.includes('/') || isDynamic(source)) out.push({ source, target, ro });
  }
  for (const m of opts.get('--mount') ?? []) {
    const kv = new Map(m.split(',').map((x) => [x.slice(0, x.indexOf('=') < 0 ? x.length : x.indexOf('=')).toLowerCase(), x.includes('=') ? x.slice(x.indexOf('=') + 1) : 'true'] as const));
    if ((kv.get('type') ?? 'volume') !== 'bind') continue;
    const source = kv.get('source') ?? kv.get('src');
    const target = kv.get('target') ?? kv.get('dst') ?? kv.get('destination');
    if (source && target) out.push({ source, target, ro: kv.has('readonly') || kv.has('ro') });
  }
  return out;
}

/** Privileges, host namespaces, devices and host mounts a container is given: each asks. */
function privileges(opts: Map<string, string[]>, scope: Scope): { target: string; source: string; ro: boolean }[] {
  const one = (o: string) => [...(opts.get(o) ?? [])];
  const priv = opts.get('--privileged');
  if (priv && priv.some((v) => v === '' || /^true$/i.test(v))) add(scope, F.privilegedContainer('--privileged (full access to the host)'));
  for (const ns of ['--pid', '--ipc', '--userns', '--cgroupns']) if (one(ns).some((v) => /^host$/i.test(v))) add(scope, F.privilegedContainer(`the host's ${ns.slice(2)} namespace (${ns}=host)`));
  for (const cap of one('--cap-add')) if (DANGEROUS_CAPS.test(cap)) add(scope, F.privilegedContainer(`--cap-add=${cap}`));
  for (const so of one('--security-opt')) if (/(apparmor|seccomp|systempaths)[=:]unconfined|label[=:]disable/i.test(so)) add(scope, F.privilegedContainer(`--security-opt ${so}`));
  for (const d of one('--device')) {
    const host = d.split(':')[0];
    if (BLOCK_DEVICE.test(host) || /^\/dev\/(mem|kmem|port|kmsg|sd|nvme|disk)/.test(host)) add(scope, F.privilegedContainer(`the host device ${host}`));
  }
  const b = binds(opts);
  for (const m of b) {
    const why = sensitiveMount(m.source, m.ro, scope);
    if (why) add(scope, F.privilegedContainer(why));
  }
  return b;
}

/** `run`/`create [opts] IMAGE [CMD…]`: privileges, then CMD in the container (mounts translated). */
function runContainer(args: string[], scope: Scope): void {
  const p = parseRunner(args, RUN);
  const b = privileges(p.opts, scope);
  const inside = elsewhere(scope, b);
  const wd = [...(p.opts.get('-w') ?? []), ...(p.opts.get('--workdir') ?? [])].pop();
  if (wd?.startsWith('/')) inside.cwd = wd;
  for (const h of p.opts.get('--health-cmd') ?? []) runString(h, inside, 'a container health check');
  const entry = p.opts.get('--entrypoint')?.pop();
  const cmd = p.operands.slice(1);
  const argv = entry ? [entry, ...cmd] : cmd;
  if (argv.length) command(argv, inside);
}

/** `exec [opts] CONTAINER CMD…`: the command inside the container. */
function execContainer(args: string[], scope: Scope, spec: Runner = EXEC): void {
  const p = parseRunner(args, spec);
  if (p.opts.has('--privileged')) add(scope, F.privilegedContainer('--privileged (full access to the host)'));
  const inside = elsewhere(scope);
  const wd = [...(p.opts.get('-w') ?? []), ...(p.opts.get('--workdir') ?? [])].pop();
  if (wd?.startsWith('/')) inside.cwd = wd;
  if (p.operands.length > 1) command(p.operands.slice(1), inside);
}

/**
 * docker, podman, nerdctl, docker-compose: returns after recording the findings. `name` is
 * lower case, without `.exe`.
 */
export function container(name: string, args: string[], scope: Scope): void {
  let i = 0;
  while (i < args.length && args[i].startsWith('-')) {
    const a = args[i];
    const opt = a.split('=')[0];
    if (name === 'podman' ? ['--url', '--connection', '--identity', '-r', '--remote'].includes(opt) : ['-H', '--host', '-c', '--context'].includes(opt)) add(scope, F.dockerRemote);
    i += GLOBAL_VALUE.has(a) ? 2 : 1;
  }
  const rest = args.slice(i);
  const verbs = rest.filter((a) => !a.startsWith('-'));
  if (verbs[0] === 'context' && verbs[1] === 'use') add(scope, F.dockerRemote);
  const compose = name === 'docker-compose' || rest[0] === 'compose';
  const group = !compose && rest[0] === 'container' ? 1 : 0;
  const v = compose ? (name === 'docker-compose' ? verbs[0] : verbs[1]) : verbs[group];
  if (['stop', 'kill', 'restart', 'down', 'rm', 'rmi'].includes(v ?? '') || (verbs.includes('prune') && ['system', 'volume', 'image', 'container', 'network', 'builder'].includes(verbs[0] ?? '')))
    add(scope, F.docker);
  if (compose) {
    // compose [-f file …] run|exec [opts] SERVICE CMD…
    const at = rest.findIndex((x, k) => (x === 'run' || x === 'exec') && k >= (name === 'docker-compose' ? 0 : 1) && !['-f', '--file', '-p', '--project-name', '--project-directory', '--profile', '--env-file'].includes(rest[k - 1] ?? ''));
    if (at < 0) return;
    if (rest[at] === 'run') return runContainer(rest.slice(at + 1), scope);
    return execContainer(rest.slice(at + 1), scope);
  }
  const at = group + rest.slice(group).findIndex((x) => !x.startsWith('-'));
  const tail = rest.slice(at + 1);
  switch (rest[at]) {
    case 'run':
    case 'create':
      return runContainer(tail, scope);
    case 'exec':
      return execContainer(tail, scope);
    case 'unshare':
      if (name === 'podman' && tail.length) command(tail, scope);
      return;
    case 'cp': {
      const ops = tail.filter((x) => !x.startsWith('-'));
      const dest = ops[ops.length - 1];
      if (ops.length >= 2 && dest && !/^[^/.~][^/]*:/.test(dest)) checkWriteTarget(dest, scope);
      return;
    }
    default:
      return;
  }
}

const KUBE_GLOBAL_VALUE = new Set(['-n', '--namespace', '--context', '--cluster', '--kubeconfig', '--user', '-s', '--server', '--token', '--as', '--as-group', '--as-uid', '--request-timeout', '--certificate-authority', '--client-certificate', '--client-key', '--tls-server-name', '-v', '--v', '--log-file', '--profile', '--profile-output']);
const KUBE_EXEC: Runner = { skip: 1, permute: true, v: 'cfn', lv: ['--container', '--filename', '--pod-running-timeout', '--namespace', '--context', '--kubeconfig'] };
const KUBE_RUN: Runner = {
  skip: 1,
  permute: true,
  v: 'ln',
  lv: ['--image', '--env', '--port', '--labels', '--overrides', '--restart', '--serviceaccount', '--annotations', '--image-pull-policy', '--namespace', '--context', '--kubeconfig', '--pod-running-timeout', '--override-type', '--target', '--container', '--profile', '--copy-to', '--share-processes', '--set-image', '--custom', '--field-selector'],
};

/** kubectl / oc: the command run in a pod (exec, run, debug, oc rsh); node debugging asks. */
export function kube(name: string, args: string[], scope: Scope): void {
  let i = 0;
  while (i < args.length && args[i].startsWith('-')) i += KUBE_GLOBAL_VALUE.has(args[i]) ? 2 : 1;
  const verb = args[i];
  const tail = args.slice(i + 1);
  const inPod = (spec: Runner) => {
    const p = parseRunner(tail, spec);
    const over = (p.opts.get('--overrides') ?? []).join(' ');
    if (/"(privileged|hostPID|hostNetwork|hostIPC)"\s*:\s*true|"hostPath"/.test(over)) add(scope, F.privilegedContainer('a privileged pod or a host path (--overrides)'));
    if (verb === 'debug' && p.operands.some((o) => /^(node|nodes)\//.test(o))) add(scope, F.privilegedContainer('a node debugging pod (the node\'s filesystem at /host)'));
    const cmd = (p.afterDD ?? p.operands.slice(1)).filter(Boolean);
    if (cmd.length && (verb === 'exec' || p.afterDD)) command(cmd, elsewhere(scope));
  };
  switch (verb) {
    case 'exec':
      return inPod(KUBE_EXEC);
    case 'run':
    case 'debug':
      return inPod(KUBE_RUN);
    case 'rsh':
      if (name === 'oc') return inPod({ ...KUBE_EXEC, permute: false });
      return;
    default:
      return;
  }
}
