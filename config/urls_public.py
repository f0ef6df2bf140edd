"""URLs of the platform host (public schema): a landing page and the platform admin that
manages tenants."""

from django.urls import path

from tenants.admin import platform_admin_site
from tenants.views import platform_home

urlpatterns = [
    path("", platform_home, name="platform-home"),
    path("admin/", platform_admin_site.urls),
]
