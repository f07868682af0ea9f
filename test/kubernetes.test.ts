/**
 * deploy/kubernetes/, as far as it can be checked without a cluster: every
 * object is validated against the Kubernetes and Prometheus Operator schemas
 * (kubernetes-models, @kubernetes-models/prometheus-operator) and type-checked
 * against their TypeScript types, which, unlike the schemas, refuse unknown
 * fields (as `kubectl apply`'s strict field validation does); each
 * kustomization lists exactly the files of its folder; the generated
 * PrometheusRule and dashboard ConfigMaps are what `npm run gen:k8s` writes;
 * the exporter accepts each ConfigMap's configuration (`--config.check`, with
 * the workload's args, mounts and the image's environment) and serves the
 * paths the probes ask; the workloads match the Dockerfile's image; the
 * ServiceMonitor and Probe jobs are selected by the rules' job selector; and
 * the sharding example's Probes agree with its StatefulSet, its configuration
 * and examples/prometheus/probe-sharded.yml.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, relative } from 'node:path';
import ts from 'typescript';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { Probe, PrometheusRule, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IIoK8sApiCoreV1PodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IProbe } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/Probe';
import type { IServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { FakeNode } from './fakes/fake-node.js';
import { eventually } from './helpers/daemon.js';
import { ROOT } from './helpers/promql-contract.js';
import { K8S_DIR, DASHBOARD_LABEL, renderGeneratedK8sFiles } from './tools/k8s-manifests.js';

// ------------------------------------------------------------------ loading

interface Kustomization {
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string }[];
  resources: string[];
}

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; namespace?: string };
  [key: string]: unknown;
}

interface Loaded {
  file: string;
  object: K8sObject;
}

/** Kind -> its model class (schema validation) and its TypeScript type (unknown fields). */
const MODELS: Record<string, { model: { new (data: never): { validate(): void } }; typeModule: string; typeName: string }> = {
  'v1/ConfigMap': { model: ConfigMap, typeModule: 'kubernetes-models/v1/ConfigMap', typeName: 'IConfigMap' },
  'v1/Service': { model: Service, typeModule: 'kubernetes-models/v1/Service', typeName: 'IService' },
  'apps/v1/Deployment': { model: Deployment, typeModule: 'kubernetes-models/apps/v1/Deployment', typeName: 'IDeployment' },
  'apps/v1/StatefulSet': { model: StatefulSet, typeModule: 'kubernetes-models/apps/v1/StatefulSet', typeName: 'IStatefulSet' },
  'monitoring.coreos.com/v1/ServiceMonitor': {
    model: ServiceMonitor,
    typeModule: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor',
    typeName: 'IServiceMonitor',
  },
  'monitoring.coreos.com/v1/Probe': {
    model: Probe,
    typeModule: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/Probe',
    typeName: 'IProbe',
  },
  'monitoring.coreos.com/v1/PrometheusRule': {
    model: PrometheusRule,
    typeModule: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule',
    typeName: 'IPrometheusRule',
  },
};

/** Parses YAML as kubectl does (YAML 1.1: `0440` is octal there), failing on any YAML error or warning. */
function parseDocs(file: string): unknown[] {
  return parseAllDocuments(readFileSync(file, 'utf8'), { version: '1.1' })
    .filter((d) => d.contents !== null)
    .map((d) => {
      if (d.errors.length + d.warnings.length > 0) throw new Error(`${file}: ${[...d.errors, ...d.warnings].map((e) => e.message).join('; ')}`);
      return d.toJS() as unknown;
    });
}

/** The kustomization folders: deploy/kubernetes and every folder under it with a kustomization.yaml. */
function kustomizationDirs(dir: string): string[] {
  const subdirs = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory());
  return [dir, ...subdirs.flatMap((e) => kustomizationDirs(join(dir, e.name)))];
}

const dirs = kustomizationDirs(K8S_DIR);
const kustomizations = new Map(dirs.map((d) => [d, parseYaml(readFileSync(join(d, 'kustomization.yaml'), 'utf8')) as Kustomization]));
const loaded = new Map<string, Loaded[]>(
  dirs.map((d) => [
    d,
    (kustomizations.get(d)?.resources ?? []).flatMap((r) =>
      parseDocs(join(d, r)).map((object) => ({ file: relative(ROOT, join(d, r)), object: object as K8sObject })),
    ),
  ]),
);
const all = [...loaded.values()].flat();
const MAIN = K8S_DIR;
const SHARDED = join(K8S_DIR, 'sharded');

function ofKind<T>(dir: string, kind: string): T[] {
  return (loaded.get(dir) ?? []).filter((l) => l.object.kind === kind).map((l) => l.object as unknown as T);
}
/** The exporter's configuration: the text of the ConfigMap key config.yml. */
function configText(dir: string): string {
  const texts = ofKind<IConfigMap>(dir, 'ConfigMap').flatMap((c) => (c.data?.['config.yml'] === undefined ? [] : [c.data['config.yml']]));
  expect(texts, `${relative(ROOT, dir)}: one config.yml`).toHaveLength(1);
  return texts[0] as string;
}
function one<T>(dir: string, kind: string): T {
  const list = ofKind<T>(dir, kind);
  expect(list, `${relative(ROOT, dir)}: one ${kind}`).toHaveLength(1);
  return list[0] as T;
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const rulesDoc = parseYaml(readFileSync(join(ROOT, 'alerts', 'avax-exporter.rules.yml'), 'utf8')) as {
  groups: { rules: { record?: string; expr: string }[] }[];
};
/** The job regex of the rules' one job selector (avax_exporter:up:selected). */
const jobSelector = (() => {
  const rec = rulesDoc.groups.flatMap((g) => g.rules).find((r) => r.record === 'avax_exporter:up:selected');
  const m = /^up\{job=~"([^"]+)"\}$/.exec(rec?.expr.trim() ?? '');
  if (!m) throw new Error(`avax_exporter:up:selected is not up{job=~"..."}: ${rec?.expr}`);
  return new RegExp(`^(?:${m[1]})$`);
})();

// ------------------------------------------------------------------ Dockerfile

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
/** The runtime stage: everything after the last FROM. */
const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
const image = {
  user: /^USER\s+(\S+)/m.exec(runtimeStage)?.[1],
  expose: Number(/^EXPOSE\s+(\d+)/m.exec(runtimeStage)?.[1]),
  healthPath: /^HEALTHCHECK\b.*?(\/-\/\w+)/m.exec(runtimeStage)?.[1],
  /** AVAX_EXPORTER_* from ENV: the exporter's settings the image fixes (the environment wins over the YAML file). */
  env: Object.fromEntries(
    [...runtimeStage.matchAll(/^ENV\s+(.*)$/gm)].flatMap((m) => [...(m[1] ?? '').matchAll(/(AVAX_EXPORTER_\w+)=(\S+)/g)].map((x) => [x[1], x[2]] as const)),
  ) as Record<string, string>,
};
/** The official node images' `node` user. */
const NODE_USER_ID = 1000;

// ------------------------------------------------------------------ helpers

type PodSpec = IIoK8sApiCoreV1PodSpec;
type Workload = IDeployment | IStatefulSet;
const workloads = (): { dir: string; w: Workload }[] =>
  dirs.flatMap((dir) => [...ofKind<IDeployment>(dir, 'Deployment'), ...ofKind<IStatefulSet>(dir, 'StatefulSet')].map((w) => ({ dir, w })));
const podOf = (w: Workload): PodSpec => w.spec?.template.spec as PodSpec;

/** Kubernetes quantities in bytes (Ki, Mi, Gi, k, M, G). */
function bytes(q: string | number | undefined): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|k|M|G)?$/.exec(String(q));
  if (!m) throw new Error(`not a memory quantity: ${q}`);
  const unit = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, k: 1e3, M: 1e6, G: 1e9 }[m[2] ?? ''] ?? 1;
  return Number(m[1]) * unit;
}

/**
 * Lays a workload's ConfigMap and Secret volumes out in a scratch directory as the kubelet mounts them, and returns
 * `map`, which rewrites the container's absolute paths onto it. A Secret that is not in the kustomization (the
 * Data API key, created with kubectl) gets a stand-in value in every file a path of the configuration names.
 */
function mountVolumes(dir: string, pod: PodSpec, scratch: string): { map: (s: string) => string } {
  const container = pod.containers[0];
  const mounts = (container?.volumeMounts ?? []).map((m) => ({ ...m, local: join(scratch, m.name) }));
  const map = (s: string) => mounts.reduce((acc, m) => acc.split(m.mountPath).join(m.local), s);
  let configText = '';
  for (const m of mounts) {
    mkdirSync(m.local, { recursive: true });
    const vol = pod.volumes?.find((v) => v.name === m.name);
    if (vol?.configMap) {
      const cm = ofKind<IConfigMap>(dir, 'ConfigMap').find((c) => c.metadata?.name === vol.configMap?.name);
      expect(cm, `ConfigMap ${vol.configMap.name} of volume ${m.name}`).toBeDefined();
      for (const [key, text] of Object.entries(cm?.data ?? {})) {
        writeFileSync(join(m.local, key), map(text));
        configText += text;
      }
    }
  }
  for (const m of mounts) {
    const vol = pod.volumes?.find((v) => v.name === m.name);
    if (!vol?.secret) continue;
    // The files of the Secret the configuration reads.
    for (const hit of configText.matchAll(new RegExp(`${m.mountPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/([\\w.-]+)`, 'g')))
      writeFileSync(join(m.local, hit[1] as string), 'stand-in-data-api-key\n');
  }
  return { map };
}

const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AVAX_EXPORTER_')));
/** The CLI as the image runs it, through tsx so no build is needed, with the image's AVAX_EXPORTER_* environment. */
const CLI = [process.execPath, '--import', 'tsx', join(ROOT, 'src', 'cli.ts')] as const;

// ------------------------------------------------------------------ tests

describe('kustomizations', () => {
  it.each(dirs.map((d) => [relative(ROOT, d), d] as const))('%s: lists exactly the files of its folder', (_name, dir) => {
    const k = kustomizations.get(dir) as Kustomization;
    const files = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && e.name !== 'kustomization.yaml')
      .map((e) => e.name)
      .sort();
    expect([...k.resources].sort()).toEqual(files);
    // Nothing else: a folder beside the files is a kustomization of its own.
    for (const e of readdirSync(dir, { withFileTypes: true }).filter((x) => x.isDirectory()))
      expect(statSync(join(dir, e.name, 'kustomization.yaml')).isFile(), `${e.name}/ has a kustomization.yaml`).toBe(true);
    for (const f of files) expect(f, 'resources are YAML files').toMatch(/\.yaml$/);
  });

  it('the image is the Dockerfile’s, tagged with package.json’s version, in every kustomization', () => {
    for (const dir of dirs) {
      const k = kustomizations.get(dir) as Kustomization;
      const names = new Set(
        workloads()
          .filter((x) => x.dir === dir)
          .flatMap(({ w }) => podOf(w).containers.map((c) => c.image)),
      );
      expect(names.size, relative(ROOT, dir)).toBeGreaterThan(0);
      for (const name of names) expect(k.images?.find((i) => i.name === name)?.newTag, `${relative(ROOT, dir)}: images[${name}]`).toBe(pkg.version);
    }
  });

  it('every object is namespaced by its kustomization only, and names are unique per kind', () => {
    for (const dir of dirs) {
      expect(kustomizations.get(dir)?.namespace, relative(ROOT, dir)).toBe('monitoring');
      const seen = new Set<string>();
      for (const { file, object } of loaded.get(dir) ?? []) {
        expect(object.metadata.namespace, file).toBeUndefined();
        const key = `${object.kind}/${object.metadata.name}`;
        expect(seen.has(key), `${file}: ${key} twice`).toBe(false);
        seen.add(key);
      }
    }
  });
});

describe('schemas', () => {
  it('the objects are the expected kinds', () => {
    const kinds = (dir: string) => [...new Set((loaded.get(dir) ?? []).map((l) => l.object.kind))].sort();
    expect(kinds(MAIN)).toEqual(['ConfigMap', 'Deployment', 'PrometheusRule', 'Service', 'ServiceMonitor']);
    expect(kinds(SHARDED)).toEqual(['ConfigMap', 'Probe', 'Service', 'ServiceMonitor', 'StatefulSet']);
  });

  it.each(all.map((l) => [`${l.file}: ${l.object.kind} ${l.object.metadata.name}`, l] as const))('%s is valid by its schema', (_name, { object }) => {
    const entry = MODELS[`${object.apiVersion}/${object.kind}`];
    expect(entry, `no model for ${object.apiVersion} ${object.kind}`).toBeDefined();
    // validate() throws with the JSON path of each problem.
    expect(() => new (entry as (typeof MODELS)[string]).model(object as never).validate()).not.toThrow();
  });

  it('the schema check has teeth: a wrong type and a missing field fail', () => {
    const d = structuredClone(one<IDeployment>(MAIN, 'Deployment'));
    (d.spec?.template.spec?.containers[0]?.ports?.[0] as { containerPort: unknown }).containerPort = 'http';
    expect(() => new Deployment(d).validate()).toThrow(/containerPort/);
    const sm = structuredClone(one<IServiceMonitor>(MAIN, 'ServiceMonitor')) as { spec: Partial<IServiceMonitor['spec']> };
    delete sm.spec.selector;
    expect(() => new ServiceMonitor(sm as never).validate()).toThrow(/selector/);
  });

  /** tsc's excess-property check over every object as a literal of its type: the schemas let unknown fields through. */
  function unknownFieldProblems(objects: readonly Loaded[]): string[] {
    const fileName = join(ROOT, '.tmp', 'kubernetes-objects.ts');
    const source = objects
      .map(({ object }, i) => {
        const m = MODELS[`${object.apiVersion}/${object.kind}`] as (typeof MODELS)[string];
        return `import type { ${m.typeName} as T${i} } from '${m.typeModule}';\nexport const o${i}: T${i} = ${JSON.stringify(object)};\n`;
      })
      .join('');
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: [],
    };
    const host = ts.createCompilerHost(options);
    const getSourceFile = host.getSourceFile.bind(host);
    const fileExists = host.fileExists.bind(host);
    const readFile = host.readFile.bind(host);
    host.getSourceFile = (f, lang, ...rest) => (f === fileName ? ts.createSourceFile(f, source, lang) : getSourceFile(f, lang, ...rest));
    host.fileExists = (f) => f === fileName || fileExists(f);
    host.readFile = (f) => (f === fileName ? source : readFile(f));
    const program = ts.createProgram([fileName], options, host);
    return ts.getPreEmitDiagnostics(program).map((d) => {
      // Two lines per object: its import and its literal (JSON.stringify writes no newline).
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -2;
      const o = objects[Math.floor(line / 2)]?.object;
      return `${o ? `${o.kind} ${o.metadata.name}` : '?'}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
  }

  it('no object has a field its type does not know (kubectl apply refuses unknown fields)', { timeout: 60_000 }, () => {
    expect(unknownFieldProblems(all)).toEqual([]);
  });

  it('the unknown-field check has teeth: a misspelt probe field fails', { timeout: 60_000 }, () => {
    const d = structuredClone(one<K8sObject>(MAIN, 'Deployment'));
    const c = (d as unknown as IDeployment).spec?.template.spec?.containers[0] as unknown as Record<string, unknown>;
    c['readinesProbe'] = c['readinessProbe'];
    delete c['readinessProbe'];
    const problems = unknownFieldProblems([{ file: 'misspelt', object: d }]);
    expect(problems.join('\n')).toMatch(/readinesProbe/);
  });
});

describe('generated files', () => {
  it.each(renderGeneratedK8sFiles().map((g) => [relative(ROOT, g.path), g] as const))('%s is what npm run gen:k8s writes', (_name, { path, content }) => {
    expect(readFileSync(path, 'utf8'), 'stale: run npm run gen:k8s').toBe(content);
  });

  it('the PrometheusRule holds the rules file’s groups unchanged', () => {
    const rule = one<{ spec: { groups: unknown[] } }>(MAIN, 'PrometheusRule');
    expect(rule.spec.groups).toEqual(rulesDoc.groups);
  });

  it('one ConfigMap per dashboard, labelled for Grafana’s sidecar, with the dashboard’s JSON unchanged', () => {
    const files = readdirSync(join(ROOT, 'dashboards')).filter((f) => f.endsWith('.json'));
    const maps = ofKind<IConfigMap>(MAIN, 'ConfigMap').filter((c) => c.metadata?.labels?.['grafana_dashboard'] !== undefined);
    expect(maps.flatMap((c) => Object.keys(c.data ?? {})).sort()).toEqual([...files].sort());
    for (const c of maps) {
      expect(c.metadata?.labels).toMatchObject(DASHBOARD_LABEL);
      for (const [file, text] of Object.entries(c.data ?? {})) {
        expect(text).toBe(readFileSync(join(ROOT, 'dashboards', file), 'utf8'));
        // `kubectl apply` (client-side) keeps the whole object in an annotation of at most 256 KiB.
        expect(JSON.stringify(c).length, `${c.metadata?.name} fits kubectl apply's annotation`).toBeLessThan(256 * 1024 - 4096);
      }
    }
  });
});

describe('workloads and the image', () => {
  it('run as the image’s non-root user with a read-only root filesystem and no privileges', () => {
    expect(image.user).toMatch(/^(node|1000)(:(node|1000))?$/);
    for (const { w } of workloads()) {
      const pod = podOf(w);
      const name = `${w.kind} ${w.metadata?.name}`;
      expect(pod.securityContext, name).toMatchObject({ runAsNonRoot: true, runAsUser: NODE_USER_ID, runAsGroup: NODE_USER_ID });
      expect(pod.automountServiceAccountToken, name).toBe(false);
      expect(pod.containers, name).toHaveLength(1);
      const c = pod.containers[0];
      expect(c?.securityContext, name).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
      // The image's ENTRYPOINT (node /app/dist/cli.js) runs: only its flags are given.
      expect(c?.command, name).toBeUndefined();
      for (const a of c?.args ?? []) expect(a, name).toMatch(/^--[a-z-]+\.[a-z.-]+=/);
    }
  });

  it('the container port is the image’s, and the probes ask /-/healthy (as its HEALTHCHECK) and /-/ready on it', () => {
    const listen = image.env['AVAX_EXPORTER_WEB_LISTEN_ADDRESS'];
    expect(listen).toBe(`:${image.expose}`);
    expect(image.healthPath).toBe('/-/healthy');
    for (const { w } of workloads()) {
      const c = podOf(w).containers[0];
      expect(c?.ports).toEqual([{ name: 'http-metrics', containerPort: image.expose, protocol: 'TCP' }]);
      expect(c?.livenessProbe?.httpGet).toEqual({ path: image.healthPath, port: 'http-metrics' });
      expect(c?.readinessProbe?.httpGet).toEqual({ path: '/-/ready', port: 'http-metrics' });
    }
  });

  it('resources follow docs/resource-use.md: memory for its RSS peak with room above it, no CPU limit', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'resource-use.md'), 'utf8');
    const peakMb = Number(/RSS stays under (\d+) MB/.exec(doc)?.[1]);
    expect(peakMb).toBeGreaterThan(0);
    for (const { w } of workloads()) {
      const r = podOf(w).containers[0]?.resources;
      expect(bytes(r?.requests?.['memory'])).toBeGreaterThanOrEqual(peakMb * 1e6);
      expect(bytes(r?.limits?.['memory'])).toBeGreaterThanOrEqual(1.5 * peakMb * 1e6);
      expect(r?.requests?.['cpu']).toBeDefined();
      expect(r?.limits?.['cpu']).toBeUndefined();
    }
  });

  it('Services select their workload’s pods and expose its port; ServiceMonitors select the Service and name its port', () => {
    for (const { dir, w } of workloads()) {
      const podLabels = w.spec?.template.metadata?.labels ?? {};
      const services = ofKind<IService>(dir, 'Service').filter((s) => Object.entries(s.spec?.selector ?? {}).every(([k, v]) => podLabels[k] === v));
      expect(services, `${w.metadata?.name}: one Service`).toHaveLength(1);
      const svc = services[0] as IService;
      // The selector picks this workload only, not the other one's pods.
      for (const other of workloads().filter((x) => x.w !== w))
        expect(Object.entries(svc.spec?.selector ?? {}).every(([k, v]) => other.w.spec?.template.metadata?.labels?.[k] === v)).toBe(false);
      expect(svc.spec?.ports?.map((p) => p.targetPort)).toEqual(['http-metrics']);
      if (w.kind === 'StatefulSet') expect(w.spec?.serviceName).toBe(svc.metadata?.name);
      const monitors = ofKind<IServiceMonitor>(dir, 'ServiceMonitor').filter((m) =>
        Object.entries(m.spec.selector.matchLabels ?? {}).every(([k, v]) => svc.metadata?.labels?.[k] === v),
      );
      expect(monitors, `${svc.metadata?.name}: one ServiceMonitor`).toHaveLength(1);
      const sm = monitors[0] as IServiceMonitor;
      expect(sm.spec.endpoints?.map((e) => [e.port, e.path])).toEqual([[svc.spec?.ports?.[0]?.name, '/metrics']]);
    }
  });

  it('the Data API key comes from a Secret through key_file, and docs/kubernetes.md says how to create it', () => {
    const pod = podOf(one<IDeployment>(MAIN, 'Deployment'));
    const secretVolumes = (pod.volumes ?? []).filter((v) => v.secret);
    expect(secretVolumes).toHaveLength(1);
    const vol = secretVolumes[0];
    const mount = pod.containers[0]?.volumeMounts?.find((m) => m.name === vol?.name);
    const config = parseYaml(configText(MAIN)) as { data_api?: { key_file?: string } };
    const keyFile = config.data_api?.key_file ?? '';
    expect(posix.dirname(keyFile)).toBe(mount?.mountPath);
    expect(mount?.readOnly).toBe(true);
    const doc = readFileSync(join(ROOT, 'docs', 'kubernetes.md'), 'utf8');
    expect(doc).toContain(`create secret generic ${vol?.secret?.secretName} --from-file=${posix.basename(keyFile)}=`);
  });
});

describe('the exporter accepts the manifests', () => {
  const scratch: string[] = [];
  const children: ChildProcess[] = [];
  let fake: FakeNode | undefined;
  beforeAll(async () => {
    fake = await FakeNode.start();
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await fake?.stop();
    for (const d of scratch) rmSync(d, { recursive: true, force: true });
  });
  const newScratch = () => {
    const d = mkdtempSync(join(tmpdir(), 'avax-exporter-k8s-'));
    scratch.push(d);
    return d;
  };
  const env = { ...cleanEnv, ...image.env };

  it.each(workloads().map(({ dir, w }) => [`${relative(ROOT, dir) || '.'}: ${w.kind} ${w.metadata?.name}`, dir, w] as const))(
    '%s: --config.check accepts its args and ConfigMap with the image’s environment',
    { timeout: 30_000 },
    (_name, dir, w) => {
      const pod = podOf(w);
      const { map } = mountVolumes(dir, pod, newScratch());
      const args = (pod.containers[0]?.args ?? []).map(map);
      const [cmd, ...pre] = CLI;
      const r = spawnSync(cmd, [...pre, ...args, '--config.check'], { encoding: 'utf8', env, timeout: 25_000 });
      expect(r.stderr).toBe('');
      expect(r.status, r.stdout).toBe(0);
    },
  );

  it('the check has teeth: a ConfigMap with an unknown key is refused', { timeout: 30_000 }, () => {
    const pod = podOf(one<IDeployment>(MAIN, 'Deployment'));
    const dir = newScratch();
    const { map } = mountVolumes(MAIN, pod, dir);
    const args = (pod.containers[0]?.args ?? []).map(map);
    const file = (/^--config\.file=(.*)$/.exec(args.find((a) => a.startsWith('--config.file=')) ?? '') ?? [])[1] as string;
    writeFileSync(file, `${readFileSync(file, 'utf8')}\npoll_interval: 15s\n`);
    const [cmd, ...pre] = CLI;
    const r = spawnSync(cmd, [...pre, ...args, '--config.check'], { encoding: 'utf8', env, timeout: 25_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/poll_interval/);
  });

  it('started as the Deployment starts it, it answers the liveness and readiness paths', { timeout: 30_000 }, async () => {
    const pod = podOf(one<IDeployment>(MAIN, 'Deployment'));
    const { map } = mountVolumes(MAIN, pod, newScratch());
    // The configured node becomes a fake one on loopback; the Data API is not reachable from here.
    const configArg = (pod.containers[0]?.args ?? []).map(map).find((a) => a.startsWith('--config.file=')) as string;
    const file = configArg.slice('--config.file='.length);
    const config = parseYaml(readFileSync(file, 'utf8')) as { nodes: { url: string }[]; data_api?: Record<string, unknown> };
    for (const n of config.nodes) n.url = fake?.url ?? '';
    config.data_api = { ...config.data_api, enabled: false };
    writeFileSync(file, JSON.stringify(config));
    const [cmd, ...pre] = CLI;
    const child = spawn(cmd, [...pre, configArg], { env: { ...env, AVAX_EXPORTER_WEB_LISTEN_ADDRESS: '127.0.0.1:0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    const listening = () =>
      out
        .split('\n')
        .slice(0, -1) // complete lines only
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg?: string; address?: string })
        .find((l) => l.msg === 'listening');
    await eventually(() => listening() !== undefined || child.exitCode !== null, 20_000);
    const port = listening()?.address?.split(':').pop();
    expect(port, out).toMatch(/^\d+$/);
    const c = pod.containers[0];
    const status = async (path: string | undefined) => (await fetch(`http://127.0.0.1:${port}${path}`)).status;
    expect(await status(c?.livenessProbe?.httpGet?.path)).toBe(200);
    await eventually(async () => (await status(c?.readinessProbe?.httpGet?.path)) === 200, 15_000);
    expect(await status('/-/not-a-probe')).toBe(404);
  });
});

describe('jobs and the rules’ job selector', () => {
  it('every ServiceMonitor’s job (jobLabel) and every Probe’s jobName is selected by avax_exporter:up:selected', () => {
    for (const dir of dirs) {
      for (const sm of ofKind<IServiceMonitor>(dir, 'ServiceMonitor')) {
        const svc = ofKind<IService>(dir, 'Service').find((s) =>
          Object.entries(sm.spec.selector.matchLabels ?? {}).every(([k, v]) => s.metadata?.labels?.[k] === v),
        );
        const job = svc?.metadata?.labels?.[sm.spec.jobLabel ?? ''];
        expect(job, `${sm.metadata?.name}: jobLabel ${sm.spec.jobLabel} on its Service`).toBe('avax-exporter');
        expect(job).toMatch(jobSelector);
      }
      for (const p of ofKind<IProbe>(dir, 'Probe')) expect(p.spec.jobName, p.metadata?.name).toMatch(jobSelector);
    }
    // What the selector is for: a job named after another Service is not covered.
    expect('avalanche-exporter').not.toMatch(jobSelector);
  });

  it('every scrape keeps the environment label the rules keep apart (cluster)', () => {
    for (const dir of dirs) {
      for (const sm of ofKind<IServiceMonitor>(dir, 'ServiceMonitor'))
        expect(sm.spec.endpoints?.[0]?.relabelings?.some((r) => r.targetLabel === 'cluster')).toBe(true);
      for (const p of ofKind<IProbe>(dir, 'Probe')) expect(p.spec.targets?.staticConfig?.labels?.['cluster']).toBeDefined();
    }
  });
});

describe('the sharding example', () => {
  const sts = one<IStatefulSet>(SHARDED, 'StatefulSet');
  const replicas = sts.spec?.replicas ?? 1;
  const probes = ofKind<IProbe>(SHARDED, 'Probe');
  const config = parseYaml(configText(SHARDED)) as {
    nodes?: unknown[];
    probe?: { targets?: string[] };
    poll?: { timeout?: string };
  };
  const example = parseYaml(readFileSync(join(ROOT, 'examples', 'prometheus', 'probe-sharded.yml'), 'utf8')) as {
    scrape_configs: { job_name: string; relabel_configs?: Record<string, unknown>[] }[];
  };

  it('one Probe per replica, each scraping its replica’s stable name on /probe', () => {
    expect(replicas).toBeGreaterThanOrEqual(2);
    expect(probes).toHaveLength(replicas);
    const ns = kustomizations.get(SHARDED)?.namespace;
    const port = sts.spec?.template.spec?.containers[0]?.ports?.[0]?.containerPort;
    probes.forEach((p, i) => {
      expect(p.spec.prober?.url).toBe(`${sts.metadata?.name}-${i}.${sts.spec?.serviceName}.${ns}.svc:${port}`);
      expect(p.spec.prober?.path).toBe('/probe');
    });
  });

  it('each Probe keeps shard i of hashmod N, the relabelings of examples/prometheus/probe-sharded.yml', () => {
    probes.forEach((p, i) => {
      const relabel = p.spec.targets?.staticConfig?.relabelingConfigs ?? [];
      expect(relabel).toEqual([
        { sourceLabels: ['__param_target'], action: 'hashmod', modulus: replicas, targetLabel: '__tmp_shard' },
        { sourceLabels: ['__tmp_shard'], action: 'keep', regex: String(i) },
      ]);
      // The operator sets __param_target, instance and __address__ (the prober) before these
      // (generateProbeConfig in prometheus-operator's pkg/prometheus/promcfg.go); the example
      // writes the same two steps between them. Same modulus there when N is the same.
      const job = example.scrape_configs.find((j) => j.job_name === `avax-exporter-probe-${i}`);
      const shardSteps = (job?.relabel_configs ?? []).filter((r) => r['action'] === 'hashmod' || r['action'] === 'keep');
      expect(shardSteps.map((r) => ({ action: r['action'], source: r['source_labels'], regex: r['regex'] ?? null }))).toEqual(
        relabel.map((r) => ({ action: r.action, source: r.sourceLabels, regex: r.regex ?? null })),
      );
    });
  });

  it('the Probes ask for exactly the URLs the replicas may poll (probe.targets), none of them a configured node', () => {
    expect(config.nodes).toEqual([]);
    const allowed = config.probe?.targets ?? [];
    expect(allowed.length).toBeGreaterThan(0);
    for (const p of probes) expect(p.spec.targets?.staticConfig?.static).toEqual(allowed);
  });

  it('the Probes’ scrape timeout exceeds a poll round (poll.timeout + 0.5 s) and fits their interval', () => {
    const seconds = (d: string | undefined) => Number(/^(\d+)s$/.exec(d ?? '')?.[1]);
    for (const p of probes) {
      expect(seconds(p.spec.scrapeTimeout)).toBeGreaterThan(seconds(config.poll?.timeout) + 0.5);
      expect(seconds(p.spec.scrapeTimeout)).toBeLessThanOrEqual(seconds(p.spec.interval));
    }
  });
});
