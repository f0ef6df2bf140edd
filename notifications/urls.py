from django.urls import path

from notifications import views

urlpatterns = [
    path("settings/notifications/", views.notification_settings, name="notification-settings"),
    path("dev/outbox/", views.dev_outbox, name="dev-outbox"),
]
