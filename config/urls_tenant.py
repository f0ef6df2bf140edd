"""URLs of a tenant's host: everything staff, approvers, tenant admins and programs use."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

urlpatterns = [
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("", include("knowledge.urls")),
    path("", include("notifications.urls")),
    path("", include("chat.urls")),
]

# Error pages in the app's layout on tenant hosts (JSON under /api/); the platform host keeps
# Django's own. They render in the request's tenant schema under daphne too (core/asgi.py).
# The 500 page is Django's, from templates/500.html: no request context, no database.
handler403 = "chat.views.forbidden_page"
handler404 = "chat.views.not_found_page"
handler413 = "chat.views.too_large_page"  # read by core.bodylimit, not by Django
