-- A claim of outbound webhook events goes endpoint by endpoint (store/sql/webhook-claim.ts): each idle endpoint's
-- oldest due event, so one endpoint's backlog never stands in front of another's. These two indexes keep that a
-- couple of index seeks per endpoint however long a backlog grows: its pending events in due order, and its
-- events under a lease (claimed, not yet settled; settling clears the lease), which are few.
CREATE INDEX webhook_events_endpoint_due ON webhook_events (endpoint_id, next_attempt_at, id) WHERE state = 'pending';
CREATE INDEX webhook_events_leased ON webhook_events (endpoint_id, lease_expires_at) WHERE lease_token IS NOT NULL;
