import { Type, type Static } from '@sinclair/typebox';
import { ProvenanceSchema, Scope } from './store.js';

export const AbsolutePath = Type.String({ minLength: 1, description: 'an absolute path to a folder on this machine' });
export const ValidateBody = Type.Object({ path: AbsolutePath }, { additionalProperties: false });
export const BuildBody = Type.Object(
  { path: AbsolutePath, tag: Type.Optional(Type.String({ description: 'default <name>:<version|latest>; may be a full OCI reference' })) },
  { additionalProperties: false },
);
export const PushBody = Type.Object(
  {
    reference: Type.String({ minLength: 1, description: 'a local build tag naming its registry (host/repository:tag); pushed under that name' }),
    key: Type.Optional(Type.String({ description: 'absolute path of a PEM ECDSA P-256 private key; needs the X-Service-Key-Signing-Capability header' })),
    identity_token: Type.Optional(Type.String({ description: 'an OIDC identity token for keyless signing: a Fulcio certificate for its identity, the signature logged in Rekor (needs the runtime keys sigstore.fulcioUrl and sigstore.rekorUrl; never logged or stored)' })),
    no_sign: Type.Optional(Type.Boolean({ description: 'push without a signature' })),
  },
  { additionalProperties: false },
);
export const PushHeaders = Type.Object({
  'x-service-key-signing-capability': Type.Optional(
    Type.String({ description: 'with key: the value the runtime wrote at start to signing-capability in its state directory' }),
  ),
});
export const ValidationResult = Type.Object({ valid: Type.Boolean(), errors: Type.Array(Type.String()), warnings: Type.Array(Type.String()) });
export const BuildResult = Type.Object({ reference: Type.String({ description: 'the tag the build is stored under' }) });
export const BuildSummary = Type.Object({ tag: Type.String(), digest: Type.String(), name: Type.String(), version: Type.String() });
export const BuildList = Type.Object({ builds: Type.Array(BuildSummary) });
export const TagParam = Type.Object({ tag: Type.String({ minLength: 1 }) });

export type ValidationResult = Static<typeof ValidationResult>;

export const NullableProvenance = Type.Union([ProvenanceSchema, Type.Null()], { description: 'who signed it; null when unsigned' });

export const Dependency = Type.Object({ digest: Type.String(), name: Type.String(), reference: Type.String() });
export const SkillMetadata = Type.Object({ author: Type.String(), description: Type.String(), name: Type.String(), tags: Type.Array(Type.String()), version: Type.String() });
export const InstalledSkill = Type.Object({
  clients: Type.Array(Type.String()),
  dependencies: Type.Array(Dependency),
  digest: Type.String({ description: 'the pin: a manifest digest or a commit' }),
  installed_at: Type.String(),
  managed: Type.Boolean({ description: 'project scope with an entry in the project lock file' }),
  metadata: SkillMetadata,
  project_root: Type.String(),
  reference: Type.String({ description: 'the resolved reference' }),
  scope: Scope,
  status: Type.Union([Type.Literal('pending'), Type.Literal('installed'), Type.Literal('failed')]),
  tag: Type.String({ description: 'the OCI tag alone, or empty' }),
});
export type InstalledSkill = Static<typeof InstalledSkill>;
export const SkillDetails = Type.Object({ installed_skill: InstalledSkill, metadata: SkillMetadata, provenance: NullableProvenance, unsigned: Type.Boolean() });
export const SkillInstallResponse = Type.Object({ skill: InstalledSkill, provenance: NullableProvenance, unsigned: Type.Boolean() });
export const SkillList = Type.Object({ skills: Type.Array(InstalledSkill) });
export const SkillContent = Type.Object({
  body: Type.String({ description: 'the whole SKILL.md' }),
  description: Type.String(),
  files: Type.Array(Type.Object({ path: Type.String(), size: Type.Integer() })),
  license: Type.String(),
  name: Type.String(),
  version: Type.String(),
});

export const InstallFields = {
  name: Type.String({ minLength: 1, description: 'the reference: git://host/path[@ref][#subdir], an OCI reference host[:port]/repository:tag|@sha256:…, or a local build tag' }),
  version: Type.Optional(Type.String({ description: "a build tag for a name without one; the content's version must equal it" })),
  scope: Type.Optional(Scope),
  project_root: Type.Optional(Type.String()),
  clients: Type.Optional(Type.Array(Type.String(), { description: 'omitted: the supporting clients installed here; ["all"]: every supporting client' })),
  force: Type.Optional(Type.Boolean({ description: 'replace a folder toolyard did not install' })),
  group: Type.Optional(Type.String()),
  allow_unsigned: Type.Optional(Type.Boolean()),
};
export const InstallBody = Type.Object(InstallFields, { additionalProperties: false });
export const ScopeQuerystring = Type.Object({ scope: Type.Optional(Scope), project_root: Type.Optional(Type.String()) });
export const ListQuerystring = Type.Object({
  scope: Type.Optional(Scope),
  client: Type.Optional(Type.String()),
  project_root: Type.Optional(Type.String()),
  group: Type.Optional(Type.String()),
});
export const ContentQuerystring = Type.Object({
  ref: Type.String({ minLength: 1, description: 'a git:// reference, an OCI reference or a local build tag' }),
  marketplace: Type.Optional(Type.String({ minLength: 1, description: 'plugins: a marketplace (git:// repository, or its marketplace.json by https URL or absolute path) to look ref up in' })),
});
export const NameParam = Type.Object({ name: Type.String({ minLength: 1 }) });

export const SyncBody = Type.Object(
  {
    project_root: Type.String({ minLength: 1 }),
    clients: Type.Optional(Type.Array(Type.String(), { description: "targets of reinstalls; default each entry's clients" })),
    prune: Type.Optional(Type.Boolean({ description: 'uninstall what was removed from the lock file' })),
    check: Type.Optional(Type.Boolean({ description: 'report only; write nothing' })),
    adopt: Type.Optional(Type.Boolean({ description: 'write lock entries for installs the lock file never had' })),
  },
  { additionalProperties: false },
);
export const SyncResult = Type.Object({
  already_current: Type.Array(Type.String()),
  drifted: Type.Array(Type.String()),
  failed: Type.Array(Type.Object({ error: Type.String(), name: Type.String(), reason: Type.String() })),
  installed: Type.Array(Type.String()),
  missing: Type.Array(Type.String()),
  never_managed: Type.Array(Type.String()),
  pruned: Type.Array(Type.String()),
  removed_from_lock: Type.Array(Type.String()),
});

export const PluginMetadata = Type.Object({
  author: Type.String(),
  description: Type.String(),
  keywords: Type.Array(Type.String()),
  license: Type.String(),
  name: Type.String(),
  version: Type.String(),
});
export const InstalledPlugin = Type.Object({
  ...Type.Omit(InstalledSkill, ['metadata']).properties,
  components: Type.Record(Type.String(), Type.Integer(), { description: 'command and agent .md files, skill folders, hook events, servers' }),
  marketplace: Type.String({ description: 'the marketplace it was installed from by name, or empty' }),
  metadata: PluginMetadata,
  signature: Type.String({ description: 'the signer identity, or empty' }),
});
export type InstalledPlugin = Static<typeof InstalledPlugin>;
export const PluginDetails = Type.Object({
  installed_plugin: InstalledPlugin,
  metadata: PluginMetadata,
  project_scope_degraded_clients: Type.Array(Type.String()),
  provenance: NullableProvenance,
  trust_unrecorded: Type.Boolean({ description: 'managed, and its lock entry records neither provenance nor unsigned' }),
  unmaterialized_components: Type.Record(Type.String(), Type.Array(Type.String()), { description: 'per client, the components it cannot load' }),
  unsigned: Type.Boolean(),
});
export const PluginInstallResponse = Type.Object({ plugin: InstalledPlugin, provenance: NullableProvenance, unsigned: Type.Boolean() });
export const PluginList = Type.Object({ plugins: Type.Array(InstalledPlugin) });
export const PluginContent = Type.Object({
  description: Type.String(),
  files: Type.Array(Type.Object({ path: Type.String(), size: Type.Integer() })),
  license: Type.String(),
  manifest: Type.String({ description: 'the raw plugin.json' }),
  name: Type.String(),
  version: Type.String(),
});
export const PluginInstallBody = Type.Object(
  { ...InstallFields, marketplace: Type.Optional(Type.String({ description: 'a plugin marketplace to look the name up in' })) },
  { additionalProperties: false },
);

export const UpgradeBody = Type.Object(
  {
    project_root: Type.String({ minLength: 1 }),
    names: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'default: every entry of the lock file' })),
    preview: Type.Optional(Type.Boolean({ description: 'report what would change; install nothing' })),
    fail_on_changes: Type.Optional(Type.Boolean({ description: 'as preview, for CI: an available upgrade is reported, nothing installed' })),
    allow_ref_change: Type.Optional(Type.Boolean({ description: 'allow a source that now resolves to another repository' })),
    allow_signer_change: Type.Optional(Type.Boolean({ description: 'allow another signer, or unsigned content over a signed entry' })),
    clients: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);
export const UpgradeResult = Type.Object({
  outcomes: Type.Array(
    Type.Object({
      error: Type.String(),
      name: Type.String(),
      new_digest: Type.String(),
      new_resolved_reference: Type.String(),
      new_signer_identity: Type.String(),
      old_digest: Type.String(),
      reason: Type.String(),
      status: Type.Union(
        ['not-upgradable', 'up-to-date', 'ref-change-blocked', 'signer-change-blocked', 'upgrade-available', 'upgraded', 'failed'].map((status) => Type.Literal(status)),
      ),
      trust_anchor_changed: Type.Boolean(),
    }),
  ),
});
