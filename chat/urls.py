from django.urls import path

from chat import api

urlpatterns = [
    path("api/conversations/", api.conversations_create),
    path("api/conversations/<uuid:conversation>/", api.conversation_detail),
    path("api/conversations/<uuid:conversation>/messages/", api.messages_create),
    path("api/conversations/<uuid:conversation>/events/", api.conversation_events),
    path("api/conversations/<uuid:conversation>/cancel/", api.conversation_cancel_view),
    path("api/actions/", api.actions_list),
    path("api/actions/<uuid:action>/approve", api.action_approve),
    path("api/actions/<uuid:action>/reject", api.action_reject),
    path("api/openapi.json", api.openapi),
]
