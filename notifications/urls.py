from django.urls import path

from notifications import views

urlpatterns = [
    path("settings/notifications/", views.notification_settings, name="notification-settings"),
]
