from django.urls import path

from chat import api, views

urlpatterns = [
    # Pages (templates/chat/) and the fragments the page script swaps in.
    path("", views.chat_page, name="chat"),
    path("c/<uuid:conversation>/", views.chat_page, name="conversation"),
    path("c/<uuid:conversation>/m/<uuid:message>/", views.message_fragment, name="message"),
    path("actions/<uuid:action>/card/", views.action_fragment, name="action-card"),
    path("kb/documents/<int:document>/", views.document_page, name="document"),
    path("approvals/", views.approvals_inbox, name="approvals"),
    path("approvals/count/", views.approvals_count, name="approvals-count"),
    # The HTTP API (docs/openapi.json).
    path("api/conversations/", api.conversations_create),
    path("api/conversations/<uuid:conversation>/", api.conversation_detail),
    path("api/conversations/<uuid:conversation>/messages/", api.messages_create),
    path("api/conversations/<uuid:conversation>/events/", api.conversation_events),
    path("api/conversations/<uuid:conversation>/cancel/", api.conversation_cancel_view),
    path("api/actions/", api.actions_list),
    path("api/actions/decide", api.actions_decide),
    path("api/actions/<uuid:action>/approve", api.action_approve),
    path("api/actions/<uuid:action>/reject", api.action_reject),
    path("api/actions/<uuid:action>/confirm", api.action_confirm_view),
    path("api/actions/<uuid:action>/decline", api.action_decline_view),
    path("api/actions/<uuid:action>/withdraw", api.action_withdraw_view),
    path("api/actions/<uuid:action>/snooze", api.action_snooze_view),
    path("api/audit/export", api.audit_export_view),
    path("api/openapi.json", api.openapi),
]
