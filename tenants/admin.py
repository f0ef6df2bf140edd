"""Two admin sites: the platform's (public schema: tenants) and each tenant's (its own data).

The default ``admin.site`` serves tenant hosts, where product apps register their models.
``platform_admin_site`` serves the platform host and is the only place tenants are managed.
"""

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth import password_validation
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.http import HttpRequest
from django.utils.decorators import method_decorator
from django.views.decorators.debug import sensitive_post_parameters

from tenants.models import Domain, Tenant, TenantUsageDay
from tenants.roles import TENANT_ADMIN
from tenants.services import TenantSpec, schema_name_problem, tenant_get_or_create, user_upsert


class PlatformAdminSite(admin.AdminSite):
    site_header = "Countersign platform"
    site_title = "Countersign platform"
    index_title = "Tenants"


platform_admin_site = PlatformAdminSite(name="platform_admin")


class DomainInline(admin.TabularInline):
    model = Domain
    extra = 1


class TenantAddForm(forms.ModelForm):
    """A new tenant and its first tenant admin, so the tenant can sign in at its own host with
    no command line. The password is set here once (never shown again, never logged): the
    operator hands it over, and the admin changes it in their own admin."""

    admin_username = forms.CharField(
        label="First admin's username", max_length=150, validators=[UnicodeUsernameValidator()]
    )
    admin_email = forms.EmailField(label="First admin's e-mail")
    admin_password = forms.CharField(
        label="First admin's password",
        strip=False,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text="Set once here and never shown again; give it to the admin in person.",
    )

    class Meta:
        model = Tenant
        fields = ("name", "schema_name", "is_active", "monthly_token_budget")

    def clean_schema_name(self) -> str:
        schema = str(self.cleaned_data["schema_name"])
        problem = schema_name_problem(schema)
        if problem:
            raise forms.ValidationError(f"The schema name {problem}.")
        return schema

    def clean_admin_password(self) -> str:
        password = str(self.cleaned_data["admin_password"])
        user = User(username=self.data.get("admin_username", ""))
        password_validation.validate_password(password, user)
        return password


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
    add_fieldsets = (
        (None, {"fields": ("name", "schema_name", "is_active", "monthly_token_budget")}),
        ("First tenant admin", {"fields": ("admin_username", "admin_email", "admin_password")}),
    )

    @method_decorator(sensitive_post_parameters("admin_password"))
    def add_view(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        return super().add_view(request, *args, **kwargs)

    def get_form(
        self, request: HttpRequest, obj: Any | None = None, change: bool = False, **kwargs: Any
    ) -> Any:
        if obj is None:
            kwargs["form"] = TenantAddForm
        return super().get_form(request, obj, change, **kwargs)

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.add_fieldsets if obj is None else super().get_fieldsets(request, obj)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        """After the domains are saved: finish the bootstrap (idempotent: roles) and create the
        first tenant admin, as ``manage.py tenant_create`` does."""
        super().save_related(request, form, formsets, change)
        if change or not isinstance(form, TenantAddForm):
            return
        tenant: Tenant = form.instance
        domains = tuple(tenant.domains.values_list("domain", flat=True))
        spec = TenantSpec(schema_name=tenant.schema_name, name=tenant.name, domains=domains)
        tenant, _ = tenant_get_or_create(spec=spec)
        user_upsert(
            tenant=tenant,
            username=form.cleaned_data["admin_username"],
            password=form.cleaned_data["admin_password"],
            role=TENANT_ADMIN,
            email=form.cleaned_data["admin_email"],
        )

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
