/**
 * The identity provider's side of bench/platform-provisioning.ts, in a process of its own so that it
 * does not share the platform's event loop: a first sync through SCIM, 8 requests at a time (POST
 * /Users, POST /Groups, then PATCH /Groups adding each group's users and child groups). Started with
 * its options as JSON in argv[2] and an IPC channel; sends one ClientResult and exits.
 */
import { Agent, request } from 'undici';

export interface ClientOptions {
  base: string;
  token: string;
  users: number;
  groups: number;
  concurrency: number;
  fanout: number;
}

export interface ClientResult {
  requests: number;
  seconds: { users: number; groups: number; members: number; total: number };
}

/** Group i's parent is group floor((i - 1) / fanout): a tree a few levels deep. Each user sits in one group. */
export function plan(users: number, groups: number, fanout: number) {
  const children = Array.from({ length: groups }, () => [] as number[]);
  for (let index = 1; index < groups; index++) children[Math.floor((index - 1) / fanout)]?.push(index);
  const usersOf = Array.from({ length: groups }, () => [] as number[]);
  for (let index = 0; index < users; index++) usersOf[index % groups]?.push(index);
  return { children, usersOf, memberships: users + groups - 1 };
}

/** Runs `task` over `items` with at most `concurrency` at a time, in the order of the list. */
async function pool<T>(items: readonly T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export async function firstSync(options: ClientOptions): Promise<ClientResult> {
  const agent = new Agent({ connections: options.concurrency, pipelining: 1 });
  let requests = 0;
  const call = async (method: 'POST' | 'PATCH', path: string, body: unknown): Promise<{ id: string }> => {
    requests++;
    const response = await request(`${options.base}${path}`, { method, dispatcher: agent, headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/scim+json' }, body: JSON.stringify(body) });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`${method} ${path}: ${String(response.statusCode)} ${text}`);
    return JSON.parse(text) as { id: string };
  };
  try {
    const { children, usersOf } = plan(options.users, options.groups, options.fanout);
    const userIds: string[] = new Array<string>(options.users);
    const groupIds: string[] = new Array<string>(options.groups);
    const started = performance.now();
    await pool([...userIds.keys()], options.concurrency, async (index) => {
      const created = await call('POST', '/Users', {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
        userName: `user${index}@example.com`,
        externalId: `ext-${index}`,
        name: { givenName: 'User', familyName: String(index), formatted: `User ${index}` },
        displayName: `User ${index}`,
        emails: [{ value: `user${index}@example.com`, type: 'work', primary: true }],
        active: true,
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: `dept-${index % 50}` },
      });
      userIds[index] = created.id;
    });
    const usersDone = performance.now();
    await pool([...groupIds.keys()], options.concurrency, async (index) => {
      const created = await call('POST', '/Groups', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: `group-${index}`, externalId: `gext-${index}`, members: [] });
      groupIds[index] = created.id;
    });
    const groupsDone = performance.now();
    await pool([...groupIds.keys()], options.concurrency, async (index) => {
      const value = [...(usersOf[index] ?? []).map((user) => ({ value: userIds[user] })), ...(children[index] ?? []).map((child) => ({ value: groupIds[child] }))];
      await call('PATCH', `/Groups/${groupIds[index] ?? ''}`, { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'add', path: 'members', value }] });
    });
    const finished = performance.now();
    const seconds = (from: number, to: number) => Math.round(to - from) / 1000;
    return { requests, seconds: { users: seconds(started, usersDone), groups: seconds(usersDone, groupsDone), members: seconds(groupsDone, finished), total: seconds(started, finished) } };
  } finally {
    await agent.close();
  }
}

if (process.send && process.argv[2] !== undefined) {
  const result = await firstSync(JSON.parse(process.argv[2]) as ClientOptions);
  process.send(result, () => process.disconnect());
}
