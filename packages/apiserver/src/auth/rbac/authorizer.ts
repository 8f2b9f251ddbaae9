/**
 * The RBAC authorizer (kube's plugin/pkg/auth/authorizer/rbac): a request is allowed when
 * a ClusterRoleBinding, or a RoleBinding of the request's namespace, binds one of the
 * user's identities to a Role or ClusterRole with a rule that allows it. Members of
 * `system:masters` are allowed everything.
 *
 * The objects are indexed by subject once per `version()` (the store revision), so a
 * decision only looks at the bindings naming the user or one of its groups.
 */
import type {
  ClusterRoleBinding,
  Decision,
  PolicyRule,
  RbacObjects,
  RequestAttributes,
  RoleBinding,
  UserInfo,
} from './attributes.js';
import { aggregateMessages } from '@operant/apimachinery';
import { systemMastersGroup } from './attributes.js';
import { effectiveClusterRoleRules } from './aggregation.js';
import { rulesAllow } from './rules.js';

type Subject = NonNullable<RoleBinding['subjects']>[number];
type RoleRef = RoleBinding['roleRef'];

/** One binding and the rules of the role it refers to. */
interface Grant {
  /** Position in kube's visiting order: ClusterRoleBindings first, then RoleBindings, each as listed. */
  order: number;
  /** The role's rules, or undefined when the role does not exist. */
  rules: readonly PolicyRule[] | undefined;
  /** `clusterrole.rbac.authorization.k8s.io "x" not found` and the like, when rules is undefined. */
  error: string;
  /** `ClusterRoleBinding "b" of ClusterRole "r"`. */
  description: string;
}

/** A grant reached through one of its subjects. */
interface Entry {
  grant: Grant;
  /** The subject's position in the binding (kube names the first subject that matches). */
  subjectIndex: number;
  /** `User "u"`, `ServiceAccount "sa/ns"`. */
  subject: string;
}

/** Entries by key: `u:<username>` or `g:<group>`. */
type GrantIndex = Map<string, Entry[]>;

interface Index {
  /** Effective rules of every ClusterRole (aggregation applied), by name. */
  clusterRoleRules: Map<string, PolicyRule[]>;
  /** Rules of every Role, by `namespace/name`. */
  roleRules: Map<string, readonly PolicyRule[]>;
  cluster: GrantIndex;
  /** Grants of RoleBindings, by namespace. */
  namespaced: Map<string, GrantIndex>;
}

/** The roles and bindings that give a user rules, as {@link RbacAuthorizer.rulesFor} returns them. */
export interface ResolvedRules {
  /** Every rule the user holds in the namespace (cluster-wide rules included), in kube's visiting order. */
  rules: PolicyRule[];
  /** Texts of bindings whose role is missing (kube reports them as evaluation errors). */
  errors: string[];
}

const userKey = (name: string): string => `u:${name}`;
const groupKey = (name: string): string => `g:${name}`;

function add(index: GrantIndex, key: string, entry: Entry): void {
  const list = index.get(key);
  if (list) list.push(entry);
  else index.set(key, [entry]);
}

/**
 * The index key a subject matches, or undefined for a subject that matches nobody.
 * `bindingNamespace` is the RoleBinding's namespace (`""` for ClusterRoleBindings): a
 * ServiceAccount subject without a namespace means one of that namespace.
 */
function subjectKey(subject: Subject, bindingNamespace: string): string | undefined {
  switch (subject.kind) {
    case 'User':
      return userKey(subject.name);
    case 'Group':
      return groupKey(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      if (!ns) return undefined;
      return userKey(`system:serviceaccount:${ns}:${subject.name}`);
    }
    default:
      return undefined;
  }
}

/** kube's describeSubject: `ServiceAccount "name/ns"`, else `Kind "name"`. */
function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') {
    const ns = subject.namespace || bindingNamespace;
    return `${subject.kind} ${JSON.stringify(`${subject.name}/${ns}`)}`;
  }
  return `${subject.kind} ${JSON.stringify(subject.name)}`;
}

/**
 * Answers authorization questions from the RBAC objects `source()` returns, re-reading
 * them whenever `version()` changes.
 */
export class RbacAuthorizer {
  private readonly source: () => RbacObjects;
  private readonly version: () => number;
  private indexed: { version: number; index: Index } | undefined;

  /**
   * @param source returns the current Roles, ClusterRoles, RoleBindings and ClusterRoleBindings.
   * @param version a number that changes whenever any of them changes (the store revision).
   */
  constructor(source: () => RbacObjects, version: () => number) {
    this.source = source;
    this.version = version;
  }

  /**
   * Decides one request. Allowed answers carry kube's reason
   * (`RBAC: allowed by RoleBinding "b/ns" of Role "r" to User "u"`); denials carry an empty
   * reason, or `RBAC: <errors>` when a binding names a missing role.
   */
  authorize(attrs: RequestAttributes): Decision {
    if (attrs.user.groups.includes(systemMastersGroup)) return { allowed: true, reason: '' };
    const errors: string[] = [];
    for (const { grant, subject } of this.entriesFor(attrs.user, attrs.namespace)) {
      if (!grant.rules) {
        errors.push(grant.error);
        continue;
      }
      if (rulesAllow(attrs, grant.rules)) {
        return { allowed: true, reason: `RBAC: allowed by ${grant.description} to ${subject}` };
      }
    }
    return { allowed: false, reason: errors.length > 0 ? `RBAC: ${aggregateMessages(errors)}` : '' };
  }

  /**
   * Every rule `user` holds in `namespace` (`""`: cluster-wide rules only), as kube's
   * RulesFor (used by SelfSubjectRulesReview and escalation checks).
   */
  rulesFor(user: UserInfo, namespace: string): ResolvedRules {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    for (const { grant } of this.entriesFor(user, namespace)) {
      if (grant.rules) rules.push(...grant.rules);
      else errors.push(grant.error);
    }
    return { rules, errors };
  }

  /**
   * The rules a roleRef grants: a ClusterRole's (aggregation applied), or a Role's of
   * `namespace`. Undefined when the role does not exist (kube's GetRoleReferenceRules).
   */
  roleReferenceRules(roleRef: RoleRef, namespace: string): PolicyRule[] | undefined {
    const index = this.index();
    let rules: readonly PolicyRule[] | undefined;
    if (roleRef.kind === 'ClusterRole') rules = index.clusterRoleRules.get(roleRef.name);
    else if (roleRef.kind === 'Role' && namespace) rules = index.roleRules.get(`${namespace}/${roleRef.name}`);
    return rules ? [...rules] : undefined;
  }

  /** Forgets the index, so the next question re-reads the objects even if the version did not change. */
  invalidate(): void {
    this.indexed = undefined;
  }

  /** The bindings that name the user, each once, in kube's visiting order. */
  private entriesFor(user: UserInfo, namespace: string): Entry[] {
    const index = this.index();
    const out: Entry[] = [];
    const collect = (gi: GrantIndex | undefined): void => {
      if (!gi) return;
      const own = gi.get(userKey(user.username));
      if (own) out.push(...own);
      for (const g of user.groups) {
        const list = gi.get(groupKey(g));
        if (list) out.push(...list);
      }
    };
    collect(index.cluster);
    if (namespace) collect(index.namespaced.get(namespace));
    if (out.length < 2) return out;
    // One binding can name the user through several subjects: visit it once, through the first.
    out.sort((a, b) => a.grant.order - b.grant.order || a.subjectIndex - b.subjectIndex);
    return out.filter((e, i) => i === 0 || out[i - 1]!.grant !== e.grant);
  }

  private index(): Index {
    const v = this.version();
    if (this.indexed && this.indexed.version === v) return this.indexed.index;
    const index = buildIndex(this.source());
    this.indexed = { version: v, index };
    return index;
  }
}

function buildIndex(objects: RbacObjects): Index {
  const clusterRoleRules = effectiveClusterRoleRules(objects.clusterRoles);
  const roleRules = new Map<string, readonly PolicyRule[]>();
  for (const role of objects.roles) {
    roleRules.set(`${role.metadata?.namespace ?? ''}/${role.metadata?.name ?? ''}`, role.rules ?? []);
  }
  const index: Index = { clusterRoleRules, roleRules, cluster: new Map(), namespaced: new Map() };
  let order = 0;

  const resolveRef = (
    binding: RoleBinding | ClusterRoleBinding,
    namespace: string,
  ): { rules: readonly PolicyRule[] | undefined; error: string } => {
    const ref = binding.roleRef;
    if (ref.kind === 'ClusterRole') {
      const rules = clusterRoleRules.get(ref.name);
      return { rules, error: `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` };
    }
    if (ref.kind === 'Role' && namespace) {
      const rules = roleRules.get(`${namespace}/${ref.name}`);
      return { rules, error: `role.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` };
    }
    return { rules: undefined, error: `unsupported role reference kind: ${JSON.stringify(ref.kind)}` };
  };

  const addBinding = (binding: RoleBinding | ClusterRoleBinding, namespace: string, target: GrantIndex): void => {
    const { rules, error } = resolveRef(binding, namespace);
    const name = binding.metadata?.name ?? '';
    const describedBinding = namespace
      ? `RoleBinding ${JSON.stringify(`${name}/${namespace}`)}`
      : `ClusterRoleBinding ${JSON.stringify(name)}`;
    const grant: Grant = {
      order: order++,
      rules,
      error,
      description: `${describedBinding} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)}`,
    };
    (binding.subjects ?? []).forEach((subject, subjectIndex) => {
      const key = subjectKey(subject, namespace);
      if (key === undefined) return;
      add(target, key, { grant, subjectIndex, subject: describeSubject(subject, namespace) });
    });
  };

  for (const crb of objects.clusterRoleBindings) addBinding(crb, '', index.cluster);
  for (const rb of objects.roleBindings) {
    const ns = rb.metadata?.namespace ?? '';
    if (!ns) continue;
    let target = index.namespaced.get(ns);
    if (!target) {
      target = new Map();
      index.namespaced.set(ns, target);
    }
    addBinding(rb, ns, target);
  }
  return index;
}
