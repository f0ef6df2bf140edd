"""The audit trail becomes tamper-evident: hash chained, append-only, and kept when its action
or conversation is deleted (docs/operations.md, "Audit trail").

Existing events are chained in the order they happened (time, then id); then a trigger refuses
every UPDATE and DELETE of ``chat_actionevent`` in this schema except the one redaction the
retention job makes. It runs for every tenant schema, and for every new tenant when its schema
is migrated. A superuser can still switch triggers off (``session_replication_role``,
``ALTER TABLE … DISABLE TRIGGER``); ``manage.py audit_verify`` is what detects that.
"""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

from chat.audit.chain import GENESIS, at_text, content_hash, data_hash, link_hash

APPEND_ONLY = """
CREATE OR REPLACE FUNCTION chat_actionevent_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'audit events are append-only: % of event % refused', TG_OP, OLD.seq
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    -- The one UPDATE allowed: retention empties the data of an event not yet redacted and
    -- marks it so; every other column, the hashes included, stays exactly as it was.
    IF OLD.redacted_at IS NULL AND NEW.redacted_at IS NOT NULL AND NEW.data = '{}'::jsonb
       AND (NEW.id, NEW.seq, NEW.action_id, NEW.tool, NEW.kind, NEW.actor_id,
            NEW.actor_username, NEW.at, NEW.data_hash, NEW.content_hash, NEW.prev_hash,
            NEW.hash)
           IS NOT DISTINCT FROM
           (OLD.id, OLD.seq, OLD.action_id, OLD.tool, OLD.kind, OLD.actor_id,
            OLD.actor_username, OLD.at, OLD.data_hash, OLD.content_hash, OLD.prev_hash,
            OLD.hash)
    THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'audit events are append-only: % of event % refused', TG_OP, OLD.seq
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER chat_actionevent_append_only
    BEFORE UPDATE OR DELETE ON chat_actionevent
    FOR EACH ROW EXECUTE FUNCTION chat_actionevent_append_only();
"""

DROP_APPEND_ONLY = """
DROP TRIGGER IF EXISTS chat_actionevent_append_only ON chat_actionevent;
DROP FUNCTION IF EXISTS chat_actionevent_append_only();
"""


NEW_COLUMNS = ("seq", "tool", "actor_username", "data_hash", "content_hash", "prev_hash", "hash")


def chain_existing_events(apps, schema_editor):
    ActionEvent = apps.get_model("chat", "ActionEvent")
    PendingAction = apps.get_model("chat", "PendingAction")
    AuditChainHead = apps.get_model("chat", "AuditChainHead")
    tools = dict(PendingAction.objects.values_list("id", "tool"))
    prev, seq = GENESIS, 0
    for event in ActionEvent.objects.select_related("actor").order_by("at", "id"):
        seq += 1
        event.seq = seq
        event.tool = tools.get(event.action_id, "")
        event.actor_username = event.actor.username if event.actor else ""
        event.data_hash = data_hash(event.data)
        fields = {
            "seq": seq,
            "action": str(event.action_id),
            "tool": event.tool,
            "kind": event.kind,
            "actor": event.actor_id,
            "actor_username": event.actor_username,
            "at": at_text(event.at),
        }
        event.content_hash = content_hash(fields, data_hash=event.data_hash)
        event.prev_hash, event.hash = (
            prev,
            link_hash(prev_hash=prev, content_hash=event.content_hash),
        )
        prev = event.hash
        # Only the new columns: an UPDATE that touches no foreign key queues no deferred
        # constraint check, which would stop the ALTER TABLE below in this transaction.
        ActionEvent.objects.filter(pk=event.pk).update(
            **{name: getattr(event, name) for name in NEW_COLUMNS}
        )
    if seq:
        AuditChainHead.objects.create(id=1, seq=seq, hash=prev)


class Migration(migrations.Migration):
    dependencies = [
        ("chat", "0011_pending_action_trace_context"),
    ]

    operations = [
        migrations.AlterField(
            model_name="actionevent",
            name="action",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="events",
                to="chat.pendingaction",
            ),
        ),
        migrations.AlterField(
            model_name="actionevent",
            name="at",
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.AddField(
            model_name="actionevent",
            name="seq",
            field=models.PositiveBigIntegerField(editable=False, null=True),
        ),
        migrations.AddField(
            model_name="actionevent",
            name="tool",
            field=models.CharField(blank=True, default="", max_length=64),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="actionevent",
            name="actor_username",
            field=models.CharField(blank=True, default="", max_length=150),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="actionevent",
            name="redacted_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="actionevent",
            name="data_hash",
            field=models.CharField(default="", editable=False, max_length=64),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="actionevent",
            name="content_hash",
            field=models.CharField(default="", editable=False, max_length=64),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="actionevent",
            name="prev_hash",
            field=models.CharField(default="", editable=False, max_length=64),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="actionevent",
            name="hash",
            field=models.CharField(default="", editable=False, max_length=64),
            preserve_default=False,
        ),
        migrations.CreateModel(
            name="AuditChainHead",
            fields=[
                (
                    "id",
                    models.PositiveSmallIntegerField(
                        default=1, editable=False, primary_key=True, serialize=False
                    ),
                ),
                ("seq", models.PositiveBigIntegerField(default=0)),
                ("hash", models.CharField(max_length=64)),
            ],
            options={
                "constraints": [
                    models.CheckConstraint(condition=models.Q(id=1), name="audit_head_single")
                ],
            },
        ),
        migrations.RunPython(chain_existing_events, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="actionevent",
            name="seq",
            field=models.PositiveBigIntegerField(editable=False, unique=True),
        ),
        migrations.AlterModelOptions(name="actionevent", options={"ordering": ["seq"]}),
        migrations.RunSQL(APPEND_ONLY, DROP_APPEND_ONLY),
    ]
