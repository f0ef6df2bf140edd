from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "chat"
    verbose_name = "Chat"
    default_auto_field = "django.db.models.BigAutoField"
    # Tenant admins curate the prompt and read the audit trail (tenants/roles.py collects this).
    role_permissions = {
        "tenant admin": [
            "chat.add_assistantprompt",
            "chat.change_assistantprompt",
            "chat.view_assistantprompt",
            "chat.view_conversation",
            "chat.view_pendingaction",
            "chat.view_actionevent",
            "chat.view_message",
        ],
    }
