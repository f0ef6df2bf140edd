"""Two admin sites: the platform's (public schema: tenants) and each tenant's (its own data).

The default ``admin.site`` serves tenant hosts, where product apps register their models.
``platform_admin_site`` serves the platform host and is the only place tenants are managed.
"""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import construct_change_message
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.http import HttpRequest, HttpResponseRedirect
from django.utils.decorators import method_decorator
from django.views.decorators.debug import sensitive_post_parameters

from tenants.models import Domain, Tenant, TenantUsageDay
from tenants.services import (
    PASSWORD_FIELD,
    FirstAdmin,
    OnboardingFailed,
    OnboardingRefused,
    TenantSpec,
    account_password_check,
    domain_check,
    domains_check,
    schema_name_check,
    tenant_onboard,
)


class PlatformAdminSite(admin.AdminSite):
    site_header = "Countersign platform"
    site_title = "Countersign platform"
    index_title = "Tenants"


platform_admin_site = PlatformAdminSite(name="platform_admin")


class DomainForm(forms.ModelForm):
    """One host name of a tenant, stored the way hosts are looked up (``tenants.services``)."""

    class Meta:
        model = Domain
        fields = ("domain", "is_primary")

    def clean_domain(self) -> str:
        tenant = self.instance.tenant if self.instance.tenant_id else None
        try:
            return domain_check(domain=str(self.cleaned_data["domain"]), tenant=tenant)
        except OnboardingRefused as error:
            raise forms.ValidationError(error.messages) from error


class DomainFormSet(forms.BaseInlineFormSet):
    """The tenant's domains together: none listed twice (after normalising), at least one."""

    def clean(self) -> None:
        super().clean()
        domains = [
            form.cleaned_data["domain"]
            for form in self.forms
            if form.cleaned_data.get("domain") and not form.cleaned_data.get("DELETE")
        ]
        if any(self.errors):
            return
        tenant = self.instance if self.instance.pk else None
        try:
            domains_check(domains=domains, tenant=tenant)
        except OnboardingRefused as error:
            raise forms.ValidationError(error.messages) from error


class DomainInline(admin.TabularInline):
    model = Domain
    form = DomainForm
    formset = DomainFormSet
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
        help_texts = {
            "schema_name": "The tenant's PostgreSQL schema, where all its data lives: lower-case "
            "letters, digits and underscores, starting with a letter (e.g. acme_clinic). It "
            "must not exist yet and cannot be changed later.",
        }

    def clean_schema_name(self) -> str:
        try:
            return schema_name_check(schema_name=str(self.cleaned_data["schema_name"]))
        except OnboardingRefused as error:
            raise forms.ValidationError(error.messages) from error

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if "admin_password" in cleaned and "admin_username" in cleaned:
            try:
                account_password_check(
                    password=cleaned["admin_password"],
                    username=cleaned["admin_username"],
                    email=cleaned.get("admin_email", ""),
                    tenant_name=cleaned.get("name", ""),
                )
            except OnboardingRefused as error:
                self.add_error(PASSWORD_FIELD, error.messages)
        return cleaned

    def first_admin(self) -> FirstAdmin:
        return FirstAdmin(
            username=self.cleaned_data["admin_username"],
            password=self.cleaned_data["admin_password"],
            email=self.cleaned_data["admin_email"],
        )


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
        try:
            return super().add_view(request, *args, **kwargs)
        except (OnboardingRefused, OnboardingFailed) as error:
            # The form's checks passed, then the service's (under its lock) did not: another
            # Add tenant took the name meanwhile, or the database failed midway. Either way the
            # transaction was rolled back.
            self.message_user(request, f"The tenant was not created: {error}", messages.ERROR)
            return HttpResponseRedirect(request.path)

    def get_form(
        self, request: HttpRequest, obj: Any | None = None, change: bool = False, **kwargs: Any
    ) -> Any:
        if obj is None:
            kwargs["form"] = TenantAddForm
        return super().get_form(request, obj, change, **kwargs)

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.add_fieldsets if obj is None else super().get_fieldsets(request, obj)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        # A new tenant is created in one piece by save_related, once its domains are known.
        if change:
            super().save_model(request, obj, form, change)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        """Add tenant: the tenant, its schema, roles, first admin and domains, all at once
        through ``tenant_onboard`` (as ``manage.py tenant_create`` does)."""
        if change or not isinstance(form, TenantAddForm):
            super().save_related(request, form, formsets, change)
            return
        rows = [
            row
            for formset in formsets
            for row in formset.cleaned_data
            if row.get("domain") and not row.get("DELETE")
        ]
        # The row marked primary first: the service makes the first domain the primary one.
        rows.sort(key=lambda row: not row.get("is_primary"))
        draft: Tenant = form.instance
        spec = TenantSpec(
            schema_name=draft.schema_name,
            name=draft.name,
            domains=tuple(row["domain"] for row in rows),
            is_active=draft.is_active,
            monthly_token_budget=draft.monthly_token_budget,
        )
        tenant = tenant_onboard(spec=spec, first_admin=form.first_admin())
        # The admin logs and redirects with the object it built from the form.
        draft.pk = tenant.pk
        draft._state.adding = False
        draft.refresh_from_db()

    def construct_change_message(
        self, request: HttpRequest, form: Any, formsets: Any, add: bool = False
    ) -> Any:
        # On add, the inline formsets were not saved by the admin (the service wrote the rows).
        return construct_change_message(form, [] if add else formsets, add)

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
