"""URLs of the platform host (public schema): the platform admin that manages tenants."""

from django.urls import path

from tenants.admin import platform_admin_site

urlpatterns = [
    path("admin/", platform_admin_site.urls),
]
