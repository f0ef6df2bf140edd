from django.urls import path

from notifications import views, webhooks

urlpatterns = [
    path("settings/notifications/", views.notification_settings, name="notification-settings"),
    # The e-mail's signed links (notifications/decision_links.py).
    path("approvals/decide/<str:token>/", views.decision_link, name="decision-link"),
    path("hooks/<str:channel>/inbound", webhooks.inbound_webhook, name="inbound-webhook"),
    path("dev/outbox/", views.dev_outbox, name="dev-outbox"),
]
