-- A send with an idempotency key keeps a hash of what it asked for (body, recipients, thread): a later send with
-- the same key is a retry only if it asks for the same thing; otherwise it is refused (IDEMPOTENCY_CONFLICT).
-- Messages stored before this column have NULL: for them only the body can be compared.
ALTER TABLE messages ADD COLUMN idempotency_hash TEXT;
