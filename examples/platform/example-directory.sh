#!/usr/bin/env bash
# A small example directory, provisioned the way an identity provider does it: through SCIM 2.0.
# Start the platform first (`npm run start:platform`), then run this script from the repository root:
#   bash examples/platform/example-directory.sh [base URL, default http://127.0.0.1:8090]
# It creates four users and three nested groups (everyone ⊃ engineering ⊃ platform-team) under the
# `example` provisioner of examples/platform.yaml; see them with `curl $BASE/v1/groups`.
set -euo pipefail
BASE="${1:-http://127.0.0.1:8090}"
SCIM="$BASE/scim/v2/example"
TOKEN="$(cat "$(dirname "$0")/scim-token.txt")"

scim() { # METHOD PATH [JSON] → prints the response body
  curl -sS --fail-with-body -X "$1" "$SCIM$2" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/scim+json' ${3:+-d "$3"}
}
id_of() { sed -E 's/.*"id":"([^"]+)".*/\1/'; }

user() { # userName displayName
  scim POST /Users "{\"schemas\":[\"urn:ietf:params:scim:schemas:core:2.0:User\"],\"userName\":\"$1\",\"externalId\":\"$1\",\"displayName\":\"$2\",\"emails\":[{\"value\":\"$1\",\"type\":\"work\",\"primary\":true}]}" | id_of
}
group() { # displayName member-ids...
  local name="$1"; shift
  local members; members="$(printf '{"value":"%s"},' "$@")"
  scim POST /Groups "{\"schemas\":[\"urn:ietf:params:scim:schemas:core:2.0:Group\"],\"displayName\":\"$name\",\"members\":[${members%,}]}" | id_of
}

ada="$(user ada@example.com 'Ada Lovelace')"
grace="$(user grace@example.com 'Grace Hopper')"
linus="$(user linus@example.com 'Linus Torvalds')"
margaret="$(user margaret@example.com 'Margaret Hamilton')"

platform_team="$(group platform-team "$ada" "$linus")"
engineering="$(group engineering "$platform_team" "$grace")"
everyone="$(group everyone "$engineering" "$margaret")"

echo "provisioned 4 users and 3 nested groups (everyone $everyone ⊃ engineering $engineering ⊃ platform-team $platform_team)"
