from django.urls import path

from notifications import views, webhooks

urlpatterns = [
    path("settings/notifications/", views.notification_settings, name="notification-settings"),
    path("hooks/<str:channel>/inbound", webhooks.inbound_webhook, name="inbound-webhook"),
]
