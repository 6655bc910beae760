-- The worker prunes ended outbound webhook events past their retention (domain/webhooks/retention.ts) oldest first,
-- a batch at a time: without this index every batch read the whole outbox and sorted it.
CREATE INDEX webhook_events_ended ON webhook_events (finished_at, id) WHERE state IN ('delivered', 'failed');
