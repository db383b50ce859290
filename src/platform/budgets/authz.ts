import type { PlatformAccess } from '../identity/access.js';
import type { BudgetReadService } from './read-service.js';
import type { BudgetsService } from './service.js';

/** Budget reads take billingAdmin or auditor; writes billingAdmin (admin passes every check). */
export function authorizeBudgets(service: BudgetsService, access: PlatformAccess): BudgetsService {
  const read = ['billingAdmin', 'auditor'] as const;
  const write = ['billingAdmin'] as const;
  return {
    getCollection(actor) {
      access.require(actor, read, 'reading the budgets');
      return service.getCollection(actor);
    },
    setCollection(actor, body, ifMatch) {
      access.require(actor, write, 'replacing the budgets');
      return service.setCollection(actor, body, ifMatch);
    },
    putUserBudget(actor, subjectId, body, ifMatch) {
      access.require(actor, write, 'writing a user budget');
      return service.putUserBudget(actor, subjectId, body, ifMatch);
    },
    putGroupBudget(actor, groupId, body, ifMatch) {
      access.require(actor, write, 'writing a group budget');
      return service.putGroupBudget(actor, groupId, body, ifMatch);
    },
  };
}

/** Cells, breakdowns and slices take billingAdmin or auditor; the own summary only a directory identity (the service resolves it). */
export function authorizeBudgetReads(service: BudgetReadService, access: PlatformAccess): BudgetReadService {
  const read = ['billingAdmin', 'auditor'] as const;
  return {
    ...service,
    listCells(actor, query) {
      access.require(actor, read, 'listing budget cells');
      return service.listCells(actor, query);
    },
    breakdown(actor, query) {
      access.require(actor, read, 'reading a budget breakdown');
      return service.breakdown(actor, query);
    },
    groupSlice(actor, groupId, query) {
      access.require(actor, read, 'reading a group budget slice');
      return service.groupSlice(actor, groupId, query);
    },
    userSlice(actor, subjectId, query) {
      access.require(actor, read, 'reading a user budget slice');
      return service.userSlice(actor, subjectId, query);
    },
  };
}
