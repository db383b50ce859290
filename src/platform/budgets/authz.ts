import type { PlatformAccess } from '../identity/access.js';
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
