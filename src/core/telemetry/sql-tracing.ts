import type { KyselyPlugin, OperationNode, PluginTransformQueryArgs, PluginTransformResultArgs, QueryId, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import type { Span } from '@opentelemetry/api';
import type { Tracing } from './tracing.js';

const OPERATIONS: Record<string, string> = {
  SelectQueryNode: 'SELECT',
  InsertQueryNode: 'INSERT',
  UpdateQueryNode: 'UPDATE',
  DeleteQueryNode: 'DELETE',
  MergeQueryNode: 'MERGE',
  RawNode: 'SQL',
};

/** The first table a statement names, for the span name (`SELECT sources`). */
function tableOf(node: RootOperationNode): string | undefined {
  const tableName = (table: OperationNode | undefined): string | undefined => {
    if (table?.kind === 'TableNode') return (table as unknown as { table: { identifier: { name: string } } }).table.identifier.name;
    if (table?.kind === 'AliasNode') return tableName((table as unknown as { node: OperationNode }).node);
    return undefined;
  };
  switch (node.kind) {
    case 'SelectQueryNode':
      return tableName(node.from?.froms[0]);
    case 'InsertQueryNode':
      return tableName(node.into);
    case 'UpdateQueryNode':
      return tableName(node.table);
    case 'DeleteQueryNode':
      return tableName(node.from.froms[0]);
    default:
      return undefined;
  }
}

/**
 * A client span per SQL statement run while a request or a sync is traced, through Kysely's plugin
 * hooks: started when the statement is built for execution, ended with its result. A statement that
 * fails never reaches transformResult; its span is ended as an error together with its parent.
 */
export function createSqlTracingPlugin(tracing: Tracing, system: 'postgresql' = 'postgresql'): KyselyPlugin {
  const spans = new WeakMap<QueryId, Span>();
  return {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      if (!tracing.hasActiveSpan()) return args.node;
      const operation = OPERATIONS[args.node.kind] ?? 'SQL';
      const table = tableOf(args.node);
      spans.set(
        args.queryId,
        tracing.startSpan(table === undefined ? operation : `${operation} ${table}`, {
          kind: 'client',
          endsWithParent: true,
          attributes: { 'db.system.name': system, 'db.operation.name': operation, ...(table !== undefined && { 'db.collection.name': table }) },
        }),
      );
      return args.node;
    },
    transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      const span = spans.get(args.queryId);
      if (span) {
        spans.delete(args.queryId);
        span.setAttribute('db.response.returned_rows', args.result.rows.length);
        tracing.endSpan(span);
      }
      return Promise.resolve(args.result);
    },
  };
}
