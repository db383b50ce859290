import { READ_ROLES, type PlatformAccess } from '../identity/access.js';
import type { DirectoryService } from './service.js';

/** Reads take any role; writes (groups, members) take directoryAdmin (or admin). */
export function authorizeDirectory(service: DirectoryService, access: PlatformAccess): DirectoryService {
  const read = (actor: Parameters<PlatformAccess['require']>[0], action: string) => access.require(actor, READ_ROLES, action);
  const write = (actor: Parameters<PlatformAccess['require']>[0], action: string) => access.require(actor, ['directoryAdmin'], action);
  return {
    getUser(actor, id) {
      read(actor, 'reading users');
      return service.getUser(actor, id);
    },
    listUsers(actor, query) {
      read(actor, 'listing users');
      return service.listUsers(actor, query);
    },
    groupsOfUser(actor, id, query) {
      read(actor, "listing a user's groups");
      return service.groupsOfUser(actor, id, query);
    },
    getGroup(actor, id) {
      read(actor, 'reading groups');
      return service.getGroup(actor, id);
    },
    listGroups(actor, query) {
      read(actor, 'listing groups');
      return service.listGroups(actor, query);
    },
    members(actor, id, query) {
      read(actor, 'reading group members');
      return service.members(actor, id, query);
    },
    createGroup(actor, body) {
      write(actor, 'creating groups');
      return service.createGroup(actor, body);
    },
    patchGroup(actor, id, body, ifMatch) {
      write(actor, 'changing groups');
      return service.patchGroup(actor, id, body, ifMatch);
    },
    addMember(actor, groupId, type, memberId) {
      write(actor, 'changing group members');
      return service.addMember(actor, groupId, type, memberId);
    },
    removeMember(actor, groupId, type, memberId) {
      write(actor, 'changing group members');
      return service.removeMember(actor, groupId, type, memberId);
    },
  };
}
