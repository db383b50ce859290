import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, parseAllDocuments, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseRegistryConfig } from '../../src/registry/config.js';
import { kubernetesSchemaProblems } from '../helpers/kubernetes-schemas.js';

/*
 * helm cannot be installed here (neither Debian nor npm carries it), so this file renders the chart
 * itself (and with the real `helm template` too, where a helm binary is on PATH): a small evaluator of the Go template subset the chart uses (text, {{- -}} trimming,
 * comments, define/include, if/else, range with or without a variable, parentheses, pipelines and
 * the functions toYaml, nindent, indent, quote, default, printf, eq, sha256sum). deploy/manifests/ must
 * equal its render of the default values (TOOLYARD_UPDATE_MANIFESTS=1 rewrites it), and every object
 * rendered is checked against the Kubernetes object shapes the chart uses and against the API schema of its
 * kind (built from the models @kubernetes/client-node generates from the Kubernetes OpenAPI document).
 * The evaluator is not helm: the whitespace of toYaml may differ from helm's.
 */

const ROOT = new URL('../../', import.meta.url).pathname;
const CHART = join(ROOT, 'deploy/helm/toolyard-registry');
const MANIFEST = join(ROOT, 'deploy/manifests/toolyard-registry.yaml');
const RELEASE = { Name: 'toolyard-registry', Namespace: 'toolyard', Service: 'Helm' };

// ---- a Go template subset ----

type Node =
  | { type: 'text'; text: string }
  | { type: 'action'; pipe: string }
  | { type: 'if'; pipe: string; then: Node[]; else: Node[] }
  | { type: 'range'; variable: string | undefined; pipe: string; body: Node[] }
  | { type: 'define'; name: string; body: Node[] };

interface Scope {
  dot: unknown;
  root: unknown;
  vars: Map<string, unknown>;
}

function lex(source: string): { text?: string; action?: string }[] {
  const tokens: { text?: string; action?: string }[] = [];
  const pattern = /\{\{(-\s)?([\s\S]*?)(\s-)?\}\}/g;
  let last = 0;
  let trimNext = false;
  for (let match = pattern.exec(source); match; match = pattern.exec(source)) {
    let text = source.slice(last, match.index);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (match[1]) text = text.replace(/\s+$/, '');
    tokens.push({ text });
    const action = (match[2] ?? '').trim();
    if (!action.startsWith('/*')) tokens.push({ action });
    trimNext = match[3] !== undefined;
    last = match.index + match[0].length;
  }
  tokens.push({ text: trimNext ? source.slice(last).replace(/^\s+/, '') : source.slice(last) });
  return tokens;
}

function parseTemplate(source: string): Node[] {
  const tokens = lex(source);
  let position = 0;
  const block = (): { nodes: Node[]; end: 'end' | 'else' | 'eof' } => {
    const nodes: Node[] = [];
    while (position < tokens.length) {
      const token = tokens[position++];
      if (token?.text !== undefined) {
        if (token.text !== '') nodes.push({ type: 'text', text: token.text });
        continue;
      }
      const action = token?.action ?? '';
      const [keyword = '', ...rest] = action.split(/\s+/);
      const argument = rest.join(' ');
      if (keyword === 'end' || keyword === 'else') return { nodes, end: keyword };
      if (keyword === 'if') {
        const then = block();
        const otherwise = then.end === 'else' ? block().nodes : [];
        nodes.push({ type: 'if', pipe: argument, then: then.nodes, else: otherwise });
      } else if (keyword === 'range') {
        const declaration = /^(\$\w+)\s*:=\s*(.+)$/.exec(argument);
        nodes.push({ type: 'range', variable: declaration?.[1], pipe: declaration?.[2] ?? argument, body: block().nodes });
      } else if (keyword === 'define') {
        nodes.push({ type: 'define', name: JSON.parse(argument) as string, body: block().nodes });
      } else {
        nodes.push({ type: 'action', pipe: action });
      }
    }
    return { nodes, end: 'eof' };
  };
  return block().nodes;
}

function splitTop(text: string, separator: RegExp): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (quoted) {
      if (char === '\\') current += text.charAt(i++);
      else if (char === '"') quoted = false;
    } else if (char === '"') quoted = true;
    else if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (depth === 0 && separator.test(char)) {
      if (current !== '') parts.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  if (current !== '') parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

function empty(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

function field(value: unknown, path: string): unknown {
  let current = value;
  for (const name of path.split('.').filter(Boolean)) {
    current = typeof current === 'object' && current !== null ? (current as Record<string, unknown>)[name] : undefined;
  }
  return current;
}

function show(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`cannot print ${JSON.stringify(value)}`);
}

/** sigs.k8s.io/yaml as helm's toYaml uses it: sorted keys, sequences not indented, no final newline. */
function toYaml(value: unknown): string {
  return stringify(value, { sortMapEntries: true, indentSeq: false, lineWidth: 0 }).replace(/\n$/, '');
}

function indent(width: number, text: string): string {
  const pad = ' '.repeat(width);
  return pad + text.replace(/\n/g, `\n${pad}`);
}

class Renderer {
  readonly defines = new Map<string, Node[]>();

  constructor(private readonly top: Record<string, unknown>) {}

  load(source: string): Node[] {
    const nodes = parseTemplate(source);
    const collect = (list: Node[]) => {
      for (const node of list) if (node.type === 'define') this.defines.set(node.name, node.body);
    };
    collect(nodes);
    return nodes;
  }

  render(nodes: Node[], dot: unknown = this.top, vars = new Map<string, unknown>()): string {
    const scope: Scope = { dot, root: this.top, vars };
    let out = '';
    for (const node of nodes) {
      if (node.type === 'text') out += node.text;
      else if (node.type === 'action') out += show(this.pipe(node.pipe, scope));
      else if (node.type === 'if') out += this.render(empty(this.pipe(node.pipe, scope)) ? node.else : node.then, dot, vars);
      else if (node.type === 'range') {
        const list = this.pipe(node.pipe, scope) ?? [];
        if (!Array.isArray(list)) throw new Error(`range over a non-list: ${node.pipe}`);
        for (const item of list) {
          const inner = new Map(vars);
          if (node.variable !== undefined) inner.set(node.variable, item);
          out += this.render(node.body, item, inner);
        }
      }
    }
    return out;
  }

  private pipe(text: string, scope: Scope): unknown {
    let value: unknown;
    splitTop(text, /\|/).forEach((command, index) => {
      const words = splitTop(command, /\s/);
      const args = words.slice(1).map((word) => this.term(word, scope));
      const name = words[0] ?? '';
      if (index > 0) args.push(value);
      value = /^[a-zA-Z]\w*$/.test(name) && !['true', 'false', 'nil'].includes(name) ? this.call(name, args) : this.term(name, scope);
    });
    return value;
  }

  private term(word: string, scope: Scope): unknown {
    if (word.startsWith('"')) return JSON.parse(word);
    if (/^-?\d+$/.test(word)) return Number(word);
    if (word === 'true' || word === 'false') return word === 'true';
    if (word === 'nil') return undefined;
    if (word.startsWith('(')) return this.pipe(word.slice(1, -1), scope);
    if (word.startsWith('.')) return field(scope.dot, word);
    if (word === '$' || word.startsWith('$.')) return field(scope.root, word.slice(1));
    if (word.startsWith('$')) {
      const [variable = '', ...path] = word.split('.');
      if (!scope.vars.has(variable)) throw new Error(`undefined variable ${variable}`);
      return field(scope.vars.get(variable), path.join('.'));
    }
    throw new Error(`cannot evaluate "${word}"`);
  }

  private call(name: string, args: unknown[]): unknown {
    const [a, b] = args;
    switch (name) {
      case 'include': {
        const body = this.defines.get(a as string);
        if (!body) throw new Error(`no template named ${String(a)}`);
        return this.render(body, b);
      }
      case 'toYaml':
        return toYaml(a);
      case 'nindent':
        return `\n${indent(a as number, show(b))}`;
      case 'indent':
        return indent(a as number, show(b));
      case 'quote':
        return JSON.stringify(show(a));
      case 'default':
        return empty(b) ? a : b;
      case 'printf':
        return (a as string).replace(/%[sd]/g, () => show(args.splice(1, 1)[0]));
      case 'eq':
        return a === b;
      case 'sha256sum':
        return createHash('sha256').update(show(a)).digest('hex');
      default:
        throw new Error(`function ${name} is not in the supported subset`);
    }
  }
}

/** Helm's install order for the kinds the chart renders; `helm template` prints objects in it. */
const KIND_ORDER = ['PodDisruptionBudget', 'ServiceAccount', 'Secret', 'ConfigMap', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'Service', 'Deployment'];

/** Renders the chart like `helm template <release> <chart> --namespace <ns>` with values merged over values.yaml. */
function renderChart(overrides: Record<string, unknown> = {}): string {
  const chart = parseYaml(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as { name: string; version: string; appVersion: string };
  const values = merge(parseYaml(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as Record<string, unknown>, overrides);
  const renderer = new Renderer({ Values: values, Release: RELEASE, Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion } });
  const files = readdirSync(join(CHART, 'templates')).sort();
  const parsed = files.map((file) => ({ file, nodes: renderer.load(readFileSync(join(CHART, 'templates', file), 'utf8')) }));
  const documents: { kind: string; text: string; order: number }[] = [];
  for (const { file, nodes } of parsed) {
    if (file.startsWith('_')) continue;
    for (const text of renderer.render(nodes).split(/^---\s*$/m)) {
      if (text.split('\n').every((line) => /^\s*(#.*)?$/.test(line))) continue;
      const kind = (parseYaml(text) as { kind: string }).kind;
      documents.push({ kind, order: documents.length, text: `---\n# Source: ${chart.name}/templates/${file}\n${text.replace(/^\n+/, '').replace(/\s+$/, '')}\n` });
    }
  }
  const rank = (kind: string) => (KIND_ORDER.includes(kind) ? KIND_ORDER.indexOf(kind) : KIND_ORDER.length);
  return documents
    .sort((x, y) => rank(x.kind) - rank(y.kind) || x.order - y.order)
    .map((document) => document.text)
    .join('');
}

/** Whether a helm binary is on PATH: then the chart is also rendered by helm itself. */
const HELM = spawnSync('helm', ['version', '--short'], { encoding: 'utf8' }).status === 0;

/** `helm template` with the overrides as a values file; only where helm is installed. */
function helmTemplate(overrides: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolyard-chart-'));
  try {
    const values = join(dir, 'values.yaml');
    writeFileSync(values, stringify(overrides));
    const result = spawnSync('helm', ['template', RELEASE.Name, CHART, '--namespace', RELEASE.Namespace, '-f', values], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`helm template failed: ${result.stderr}`);
    return result.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The renderers this machine has: the evaluator always, helm itself when it is installed. */
const RENDERERS: [string, (overrides?: Record<string, unknown>) => string][] = [['evaluator', renderChart], ...(HELM ? [['helm template', helmTemplate] as [string, typeof helmTemplate]] : [])];

function merge(base: Record<string, unknown>, overrides: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const current = result[key];
    const bothMaps = [current, value].every((v) => typeof v === 'object' && v !== null && !Array.isArray(v));
    result[key] = bothMaps ? merge(current as Record<string, unknown>, value as Record<string, unknown>) : value;
  }
  return result;
}

// ---- Kubernetes object shapes ----

type K8sObject = Record<string, unknown> & { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> } };

const KINDS: Record<string, { apiVersion: string; namespaced: boolean }> = {
  ServiceAccount: { apiVersion: 'v1', namespaced: true },
  ConfigMap: { apiVersion: 'v1', namespaced: true },
  Service: { apiVersion: 'v1', namespaced: true },
  Deployment: { apiVersion: 'apps/v1', namespaced: true },
  PodDisruptionBudget: { apiVersion: 'policy/v1', namespaced: true },
  Role: { apiVersion: 'rbac.authorization.k8s.io/v1', namespaced: true },
  RoleBinding: { apiVersion: 'rbac.authorization.k8s.io/v1', namespaced: true },
  ClusterRole: { apiVersion: 'rbac.authorization.k8s.io/v1', namespaced: false },
  ClusterRoleBinding: { apiVersion: 'rbac.authorization.k8s.io/v1', namespaced: false },
};

function objects(text: string): K8sObject[] {
  return parseAllDocuments(text).map((document) => {
    expect(document.errors).toEqual([]);
    return document.toJS() as K8sObject;
  });
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** Everything the chart promises, checked on a set of rendered objects; returns them by kind. */
function checkShapes(list: K8sObject[]): Map<string, K8sObject[]> {
  const byKind = new Map<string, K8sObject[]>();
  for (const object of list) {
    const known = KINDS[object.kind];
    expect(known, `kind ${object.kind}`).toBeDefined();
    expect(kubernetesSchemaProblems(object), `${object.kind} ${object.metadata.name}`).toEqual([]);
    expect(object.apiVersion).toBe(known?.apiVersion);
    expect(object.metadata.name).toMatch(DNS_SUBDOMAIN);
    if (known?.namespaced) expect(object.metadata.namespace).toMatch(DNS_SUBDOMAIN);
    else expect(object.metadata.namespace).toBeUndefined();
    for (const [key, value] of Object.entries(object.metadata.labels ?? {})) {
      expect(typeof value, `label ${key}`).toBe('string');
      expect(value).toMatch(/^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/);
    }
    byKind.set(object.kind, [...(byKind.get(object.kind) ?? []), object]);
  }
  const only = (kind: string) => {
    const found = byKind.get(kind) ?? [];
    expect(found, kind).toHaveLength(1);
    return found[0] as K8sObject;
  };

  const deployment = only('Deployment') as K8sObject & { spec: DeploymentSpec };
  const spec = deployment.spec;
  expect(spec.replicas).toBeGreaterThanOrEqual(1);
  const selector = spec.selector.matchLabels;
  expect(Object.keys(selector).length).toBeGreaterThan(0);
  expect(spec.template.metadata.labels).toMatchObject(selector);
  const pod = spec.template.spec;
  expect(pod.securityContext.runAsNonRoot).toBe(true);
  const [container] = pod.containers;
  expect(container?.image).toMatch(/^[^\s:]+:[\w][\w.-]*$/);
  expect(container?.ports).toContainEqual({ name: 'http', containerPort: 8080, protocol: 'TCP' });
  expect(container?.livenessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
  expect(container?.readinessProbe.httpGet).toEqual({ path: '/readiness', port: 'http' });
  expect(container?.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
  const volumes = new Map(pod.volumes.map((volume) => [volume.name, volume]));
  for (const mount of container?.volumeMounts ?? []) expect(volumes.has(mount.name), `volume ${mount.name}`).toBe(true);
  const tmp = container?.volumeMounts.find((mount) => mount.mountPath === '/tmp');
  expect(tmp && volumes.get(tmp.name)?.emptyDir).toEqual({});
  const serviceAccount = pod.serviceAccountName;

  const configMap = only('ConfigMap') as K8sObject & { data: Record<string, string> };
  const configVolume = [...volumes.values()].find((volume) => volume.configMap);
  expect(configVolume?.configMap?.name).toBe(configMap.metadata.name);
  // the file and the container's TOOLYARD_REGISTRY_* variables make a valid registry configuration
  const env = Object.fromEntries((container?.env ?? []).map((variable) => [variable.name, variable.value ?? 'postgres://from-a-secret@db/toolyard']));
  const config = parseRegistryConfig(parseYaml(configMap.data['registry.yaml'] ?? '') as Record<string, unknown>, env);
  expect(config.server.address).toMatch(/:8080$/);
  expect(container?.args).toEqual(['registry', 'serve', '--config', '/etc/toolyard/registry.yaml']);

  const service = only('Service') as K8sObject & { spec: { selector: Record<string, string>; ports: { port: number; targetPort: string }[] } };
  expect(service.spec.selector).toEqual(selector);
  expect(service.spec.ports[0]?.targetPort).toBe('http');
  expect(service.spec.ports[0]?.port).toBeGreaterThan(0);

  for (const pdb of byKind.get('PodDisruptionBudget') ?? []) {
    expect((pdb as K8sObject & { spec: { selector: { matchLabels: unknown } } }).spec.selector.matchLabels).toEqual(selector);
  }
  for (const role of [...(byKind.get('Role') ?? []), ...(byKind.get('ClusterRole') ?? [])]) {
    for (const rule of (role as K8sObject & { rules: { verbs: string[]; resources: string[]; apiGroups: string[] }[] }).rules) {
      expect([...rule.verbs].sort()).toEqual(['get', 'list', 'watch']);
      expect(rule.resources.length).toBeGreaterThan(0);
    }
  }
  for (const binding of [...(byKind.get('RoleBinding') ?? []), ...(byKind.get('ClusterRoleBinding') ?? [])]) {
    const { roleRef, subjects } = binding as K8sObject & { roleRef: { kind: string; name: string }; subjects: { kind: string; name: string; namespace: string }[] };
    expect(roleRef.kind).toBe(binding.kind.replace('Binding', ''));
    const role = (byKind.get(roleRef.kind) ?? []).find((r) => r.metadata.name === roleRef.name && r.metadata.namespace === binding.metadata.namespace);
    expect(role, `${binding.kind} ${binding.metadata.name} refers to an existing ${roleRef.kind}`).toBeDefined();
    expect(subjects).toEqual([{ kind: 'ServiceAccount', name: serviceAccount, namespace: deployment.metadata.namespace }]);
  }
  for (const account of byKind.get('ServiceAccount') ?? []) expect(account.metadata.name).toBe(serviceAccount);
  return byKind;
}

interface DeploymentSpec {
  replicas: number;
  selector: { matchLabels: Record<string, string> };
  template: {
    metadata: { labels: Record<string, string>; annotations: Record<string, string> };
    spec: {
      serviceAccountName: string;
      securityContext: { runAsNonRoot: boolean };
      containers: {
        image: string;
        args: string[];
        env?: { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }[];
        ports: unknown[];
        livenessProbe: { httpGet: unknown };
        readinessProbe: { httpGet: unknown };
        securityContext: Record<string, unknown>;
        volumeMounts: { name: string; mountPath: string }[];
      }[];
      volumes: { name: string; emptyDir?: unknown; configMap?: { name: string }; secret?: { secretName: string } }[];
    };
  };
}

function deploymentOf(byKind: Map<string, K8sObject[]>): DeploymentSpec {
  return (byKind.get('Deployment')?.[0] as K8sObject & { spec: DeploymentSpec }).spec;
}

describe('the Helm chart, rendered without helm', () => {
  it('deploy/manifests/ is the render of the default values', () => {
    const rendered = `# Rendered from deploy/helm/toolyard-registry with its default values (release toolyard-registry,\n# namespace toolyard). Do not edit: change the chart and run TOOLYARD_UPDATE_MANIFESTS=1 npx vitest run test/registry/deploy-chart.test.ts\n${renderChart()}`;
    if (process.env.TOOLYARD_UPDATE_MANIFESTS === '1') writeFileSync(MANIFEST, rendered);
    expect(readFileSync(MANIFEST, 'utf8')).toBe(rendered);
  });

  it('every committed manifest has the shapes the chart promises', () => {
    const files = readdirSync(join(ROOT, 'deploy/manifests')).filter((file) => /\.ya?ml$/.test(file));
    expect(files.length).toBeGreaterThan(0);
    const byKind = checkShapes(files.flatMap((file) => objects(readFileSync(join(ROOT, 'deploy/manifests', file), 'utf8'))));
    const spec = deploymentOf(byKind);
    expect(spec.replicas).toBe(2);
    expect(byKind.get('Role')?.map((role) => role.metadata.namespace)).toEqual(['default']);
    expect(byKind.get('ClusterRole')).toBeUndefined();
    const env = spec.template.spec.containers[0]?.env ?? [];
    expect(env).toContainEqual({ name: 'TOOLYARD_DATABASE_URL', valueFrom: { secretKeyRef: { name: 'toolyard-registry-database', key: 'url' } } });
    expect(spec.template.metadata.annotations['checksum/config']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('renders objects that pass the Kubernetes API schema of their kind, with every renderer on this machine', () => {
    const variants = [
      {},
      { rbac: { scope: 'cluster' } },
      { rbac: { namespaces: ['team-a'], customResources: [{ group: 'toolyard.dev', plural: 'mcpservers' }] } },
      { database: { passwordKey: 'password', caKey: 'ca.crt', migrationUrlKey: 'migrationUrl' }, image: { tag: '1.2.3' } },
    ];
    for (const [name, render] of RENDERERS) {
      for (const values of variants) {
        const rendered = objects(render(values));
        expect(rendered.length, name).toBeGreaterThan(0);
        for (const object of rendered) expect(kubernetesSchemaProblems(object), `${name}: ${object.kind} with ${JSON.stringify(values)}`).toEqual([]);
      }
    }
  });

  it('the API schema check refuses a misspelt field and a value of the wrong type', () => {
    const deployment = objects(renderChart()).find((object) => object.kind === 'Deployment') as K8sObject & { spec: Record<string, unknown> };
    const broken = { ...deployment, spec: { ...deployment.spec, replicas: 'two', strategy: { tpye: 'Recreate' } } };
    expect(kubernetesSchemaProblems(broken)).toEqual(['Deployment /spec/replicas: must be number', 'Deployment /spec/strategy: must NOT have additional properties (tpye)']);
  });

  it('scopes RBAC to each listed namespace, for Services and the listed custom resources', () => {
    const byKind = checkShapes(
      objects(renderChart({ rbac: { namespaces: ['team-a', 'team-b'], customResources: [{ group: 'toolyard.dev', plural: 'mcpservers' }] } })),
    );
    expect(byKind.get('Role')?.map((role) => role.metadata.namespace)).toEqual(['team-a', 'team-b']);
    expect(byKind.get('RoleBinding')?.map((binding) => binding.metadata.namespace)).toEqual(['team-a', 'team-b']);
    expect((byKind.get('Role')?.[0] as K8sObject & { rules: unknown }).rules).toEqual([
      { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['toolyard.dev'], resources: ['mcpservers'], verbs: ['get', 'list', 'watch'] },
    ]);
  });

  it('grants cluster-wide read access with rbac.scope cluster, and none with rbac.create false', () => {
    const cluster = checkShapes(objects(renderChart({ rbac: { scope: 'cluster' } })));
    expect(cluster.get('ClusterRole')).toHaveLength(1);
    expect(cluster.get('ClusterRoleBinding')).toHaveLength(1);
    expect(cluster.get('Role')).toBeUndefined();
    const none = checkShapes(objects(renderChart({ rbac: { create: false }, podDisruptionBudget: { enabled: false } })));
    expect([...none.keys()].sort()).toEqual(['ConfigMap', 'Deployment', 'Service', 'ServiceAccount']);
  });

  it('mounts the password and the CA from the database Secret and names them in the configuration', () => {
    const byKind = checkShapes(objects(renderChart({ database: { passwordKey: 'password', caKey: 'ca.crt', migrationUrlKey: 'migrationUrl' }, image: { tag: '1.2.3' } })));
    const pod = deploymentOf(byKind).template.spec;
    const container = pod.containers[0];
    expect(container?.image).toBe('toolyard-registry:1.2.3');
    expect(container?.env).toEqual([
      { name: 'TOOLYARD_DATABASE_URL', valueFrom: { secretKeyRef: { name: 'toolyard-registry-database', key: 'url' } } },
      { name: 'TOOLYARD_REGISTRY_DATABASE_MIGRATIONURL', valueFrom: { secretKeyRef: { name: 'toolyard-registry-database', key: 'migrationUrl' } } },
      { name: 'TOOLYARD_REGISTRY_DATABASE_PASSWORDFILE', value: '/var/run/secrets/toolyard/database/password' },
      { name: 'TOOLYARD_REGISTRY_DATABASE_CAFILE', value: '/var/run/secrets/toolyard/database/ca.crt' },
    ]);
    const configMap = byKind.get('ConfigMap')?.[0] as K8sObject & { data: Record<string, string> };
    const env = Object.fromEntries((container?.env ?? []).map((variable) => [variable.name, variable.value ?? 'postgres://owner@db/toolyard']));
    const config = parseRegistryConfig(parseYaml(configMap.data['registry.yaml'] ?? '') as Record<string, unknown>, env);
    expect(config.database).toMatchObject({
      passwordFile: '/var/run/secrets/toolyard/database/password',
      caFile: '/var/run/secrets/toolyard/database/ca.crt',
      migrationUrl: 'postgres://owner@db/toolyard',
    });
    expect(container?.volumeMounts).toContainEqual({ name: 'database', mountPath: '/var/run/secrets/toolyard/database', readOnly: true });
    expect(pod.volumes).toContainEqual({ name: 'database', secret: { secretName: 'toolyard-registry-database' } });
  });

  it('the evaluator follows Go template trimming, variables and pipelines', () => {
    const renderer = new Renderer({ Values: { list: ['a', 'b'], name: 'x', empty: '' } });
    renderer.load('{{- define "t" -}}<{{ . }}>{{- end -}}');
    const run = (source: string) => renderer.render(renderer.load(source));
    expect(run('a\n  {{- " b" }}\n{{ "c" -}}\n  d')).toBe('a b\ncd');
    expect(run('{{ range $v := .Values.list }}{{ $v }}{{ $.Values.name }}{{ end }}')).toBe('axbx');
    expect(run('{{ if .Values.empty }}yes{{ else }}no{{ end }}')).toBe('no');
    expect(run('{{ .Values.empty | default "d" | quote }} {{ default (include "t" .Values.name) .Values.empty }}')).toBe('"d" <x>');
    expect(run('{{ toYaml .Values.list | nindent 2 }}')).toBe('\n  - a\n  - b');
    expect(() => run('{{ lookup "v1" }}')).toThrow('function lookup is not in the supported subset');
  });
});
