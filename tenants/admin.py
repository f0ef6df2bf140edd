"""Two admin sites: the platform's (public schema: tenants) and each tenant's (its own data).

The default ``admin.site`` serves tenant hosts, where product apps register their models.
``platform_admin_site`` serves the platform host and is the only place tenants are managed.
"""

from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User

from tenants.models import Domain, Tenant, TenantUsageDay


class PlatformAdminSite(admin.AdminSite):
    site_header = "Countersign platform"
    site_title = "Countersign platform"
    index_title = "Tenants"


platform_admin_site = PlatformAdminSite(name="platform_admin")


class DomainInline(admin.TabularInline):
    model = Domain
    extra = 1


@admin.register(Tenant, site=platform_admin_site)
class TenantAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "schema_name",
        "is_active",
        "time_zone",
        "monthly_token_budget",
        "created_at",
    )
    search_fields = ("name", "schema_name", "domains__domain")
    list_filter = ("is_active",)
    inlines = [DomainInline]

    def get_readonly_fields(self, request, obj=None):
        # Renaming a schema would orphan its data: the name is fixed once created.
        return ("schema_name", "created_at") if obj else ("created_at",)


@admin.register(TenantUsageDay, site=platform_admin_site)
class TenantUsageDayAdmin(admin.ModelAdmin):
    """Daily model usage of every tenant, written with each tenant's own daily row."""

    list_display = ("date", "tenant", "turns", "input_tokens", "output_tokens", "cost")
    list_filter = ("tenant",)
    date_hierarchy = "date"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


platform_admin_site.register(User, UserAdmin)
platform_admin_site.register(Group, GroupAdmin)

admin.site.site_header = "Countersign"
admin.site.site_title = "Countersign"
