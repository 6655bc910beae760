import type { Migration } from "../sql/db.ts";
import mesh from "./migrations/001_mesh.sql" with { type: "text" };
import identity from "./migrations/002_identity.sql" with { type: "text" };
import automation from "./migrations/003_automation.sql" with { type: "text" };
import wake from "./migrations/004_wake.sql" with { type: "text" };
import herdrLeases from "./migrations/005_herdr_leases.sql" with { type: "text" };
import sessionExpiry from "./migrations/006_session_expiry.sql" with { type: "text" };
import idempotencyHash from "./migrations/007_idempotency_hash.sql" with { type: "text" };
import threads from "./migrations/008_threads.sql" with { type: "text" };
import contacts from "./migrations/009_contacts.sql" with { type: "text" };
import channels from "./migrations/010_channels.sql" with { type: "text" };
import search from "./migrations/011_search.sql" with { type: "text" };
import outboundWebhooks from "./migrations/012_outbound_webhooks.sql" with { type: "text" };
import hostLocalFacts from "./migrations/013_host_local_facts.sql" with { type: "text" };
import searchFlat from "./migrations/014_search_flat.sql" with { type: "text" };
import webhookEventsEnded from "./migrations/015_webhook_events_ended.sql" with { type: "text" };
import webhookPrivateHost from "./migrations/016_webhook_private_host.sql" with { type: "text" };
import webhookFairClaims from "./migrations/017_webhook_fair_claims.sql" with { type: "text" };
import nameKeys from "./migrations/018_name_keys.sql" with { type: "text" };
import fileReservations from "./migrations/019_file_reservations.sql" with { type: "text" };
import messagesByAge from "./migrations/020_messages_by_age.sql" with { type: "text" };

export const sqliteMigrations: readonly Migration[] = [
  { version: 1, name: "mesh", sql: mesh },
  { version: 2, name: "identity", sql: identity },
  { version: 3, name: "automation", sql: automation },
  { version: 4, name: "wake", sql: wake },
  { version: 5, name: "herdr_leases", sql: herdrLeases },
  { version: 6, name: "session_expiry", sql: sessionExpiry },
  { version: 7, name: "idempotency_hash", sql: idempotencyHash },
  { version: 8, name: "threads", sql: threads },
  { version: 9, name: "contacts", sql: contacts },
  { version: 10, name: "channels", sql: channels },
  { version: 11, name: "search", sql: search },
  { version: 12, name: "outbound_webhooks", sql: outboundWebhooks },
  { version: 13, name: "host_local_facts", sql: hostLocalFacts },
  { version: 14, name: "search_flat", sql: searchFlat },
  { version: 15, name: "webhook_events_ended", sql: webhookEventsEnded },
  { version: 16, name: "webhook_private_host", sql: webhookPrivateHost },
  { version: 17, name: "webhook_fair_claims", sql: webhookFairClaims },
  { version: 18, name: "name_keys", sql: nameKeys },
  { version: 19, name: "file_reservations", sql: fileReservations },
  { version: 20, name: "messages_by_age", sql: messagesByAge },
];
